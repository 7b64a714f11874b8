# bash completion for kvcat. Installed as share/bash-completion/completions/kvcat;
# to try it from a checkout: source tools/completion/kvcat.bash
#
# Subcommands, options and option values ({a,b,c} in --help) are read from kvcat's own
# --help, columns from `kvcat columns` and lint rule ids from `kvcat lint --list-rules
# --format ids`, so the completion follows the program and lists nothing itself. Needs
# nothing from the bash-completion package.

# The help of `kvcat [SUB...] --help` (SUB a space-separated command path such as
# "new kv-efficiency"), cached per program and path for the session.
_kvcat_help() {
    local prog=$1 sub=$2 key
    key="${prog}|${sub}"
    if [[ -z ${_kvcat_help_cache[$key]+set} ]]; then
        local path=()
        read -r -a path <<<"$sub"
        _kvcat_help_cache[$key]=$("$prog" "${path[@]}" --help 2>/dev/null)
    fi
    printf '%s\n' "${_kvcat_help_cache[$key]}"
}

# The subcommands of `kvcat [SUB...]`, from the "Subcommands:" section of its help.
_kvcat_subcommands() {
    _kvcat_help "$1" "${2-}" | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

_kvcat_options() {
    _kvcat_help "$1" "$2" | sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n' | sed -n 's/^\(--*[a-zA-Z][a-zA-Z-]*\).*/\1/p'
}

# The values an option accepts, from "--format TEXT:{table,csv,...}" in the help.
_kvcat_option_values() {
    _kvcat_help "$1" "$2" | sed -n "s/^  .*$3 [A-Z]*:{\\([^}]*\\)}.*/\\1/p" | tr ',' ' '
}

# The lint rule ids, from the binary's rule registry, cached per program for the session.
_kvcat_rules() {
    if [[ -z ${_kvcat_rules_cache[$1]+set} ]]; then
        _kvcat_rules_cache[$1]=$("$1" lint --list-rules --format ids 2>/dev/null | tr '\n' ' ')
    fi
    printf '%s\n' "${_kvcat_rules_cache[$1]}"
}

_kvcat_columns() {
    if [[ -z ${_kvcat_columns_cache[$1]+set} ]]; then
        _kvcat_columns_cache[$1]=$("$1" columns --format tsv 2>/dev/null | tail -n +2 | cut -f1 | tr '\n' ' ')
    fi
    printf '%s\n' "${_kvcat_columns_cache[$1]}"
}

_kvcat() {
    declare -gA _kvcat_help_cache _kvcat_columns_cache _kvcat_rules_cache
    local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    # The subcommand: the first word after the program that is not an option; then, when
    # that command has subcommands of its own (kvcat new kv-efficiency), the next such word
    # that names one.
    local sub="" i word
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        [[ $word == -* ]] && continue
        if [[ -z $sub ]]; then
            sub=$word
        elif [[ $sub != *" "* ]] && _kvcat_subcommands "$prog" "$sub" | grep -qxF -- "$word"; then
            sub="$sub $word"
            break
        fi
    done

    if [[ -z $sub ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$(_kvcat_options "$prog" "")" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_kvcat_subcommands "$prog")" -- "$cur")
        fi
        return 0
    fi

    # The value of an option.
    case $prev in
        --rule)
            local prefix=""
            [[ $cur == *,* ]] && prefix="${cur%,*},"
            mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$(_kvcat_rules "$prog")" -- "${cur##*,}")
            return 0 ;;
        --sort)
            mapfile -t COMPREPLY < <(compgen -W "$(_kvcat_columns "$prog")" -- "$cur")
            return 0 ;;
        --columns)
            local prefix=""
            [[ $cur == *,* ]] && prefix="${cur%,*},"
            mapfile -t COMPREPLY < <(compgen -P "$prefix" -W "$(_kvcat_columns "$prog")" -- "${cur##*,}")
            compopt -o nospace 2>/dev/null || true
            return 0 ;;
        --db)
            compopt -o filenames 2>/dev/null || true
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return 0 ;;
        --records)
            compopt -o filenames 2>/dev/null || true
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return 0 ;;
        --*)
            local values
            values=$(_kvcat_option_values "$prog" "$sub" "$prev")
            if [[ -n $values ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
                return 0
            fi
            # An option that takes a value the help does not enumerate: complete files.
            if _kvcat_help "$prog" "$sub" | grep -qE "^  ([^ ]*,)?$prev [A-Z]"; then
                compopt -o filenames 2>/dev/null || true
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                return 0
            fi ;;
    esac

    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_kvcat_options "$prog" "$sub")" -- "$cur")
        return 0
    fi
    # A command with subcommands of its own, none chosen yet: offer them.
    if [[ $sub != *" "* ]]; then
        local nested
        nested=$(_kvcat_subcommands "$prog" "$sub")
        if [[ -n $nested ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$nested" -- "$cur")
            return 0
        fi
    fi
    case $sub in
        query | report)
            # A filter starts with a column name; the operator and value are the user's.
            mapfile -t COMPREPLY < <(compgen -W "$(_kvcat_columns "$prog")" -- "$cur")
            compopt -o nospace 2>/dev/null || true ;;
        lint | build | explain)
            compopt -o filenames 2>/dev/null || true
            mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    esac
    return 0
}

# kvcat on PATH, and the binary as a checkout builds it (bash matches the word as typed).
complete -F _kvcat kvcat build/release/kvcat ./build/release/kvcat
