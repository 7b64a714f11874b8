# bash completion for kvcat. Installed as share/bash-completion/completions/kvcat;
# to try it from a checkout: source tools/completion/kvcat.bash
#
# Subcommands, options and option values ({a,b,c} in --help) are read from kvcat's own
# --help, columns from `kvcat columns`, lint rule ids from `kvcat lint --list-rules
# --format ids`, and record ids and a filter column's values from the catalog through the
# hidden `kvcat complete ids KIND` and `kvcat complete values COLUMN`, so the completion
# follows the program and lists nothing itself. Needs nothing from the bash-completion package.

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

# What the catalog knows, one a line, from the hidden `kvcat complete` (ids of a kind, or a
# column's values), with the --db and --records of the line being completed. Not cached: the
# catalog changes while a shell is open, and the answer is one small read.
_kvcat_catalog() {
    local prog=$1 what=$2 arg=$3 i db="" records=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --db) db=${COMP_WORDS[i + 1]-} ;;
            --records) records=${COMP_WORDS[i + 1]-} ;;
        esac
    done
    local extra=()
    [[ -n $db ]] && extra+=(--db "$db")
    [[ -n $records && $what == ids ]] && extra+=(--records "$records")
    "$prog" -q complete "$what" "$arg" "${extra[@]}" 2>/dev/null
}

# The words of `candidates` (one a line) that start with `typed`, each after `head`; a record
# id loses its folder unless `typed` has a slash (ids resolve without it). Into COMPREPLY.
_kvcat_offer() {
    local head=$1 typed=$2 candidates=$3 word
    COMPREPLY=()
    while IFS= read -r word; do
        [[ -z $word ]] && continue
        if [[ $typed != */* && ($word == models/* || $word == accelerators/* || $word == kv-efficiency/*) ]]; then
            word=${word#*/}
        fi
        [[ $word == "$typed"* ]] && COMPREPLY+=("$head$word")
    done <<<"$candidates"
}

# bash splits the word under the cursor at the characters of COMP_WORDBREAKS (= and : among
# them), and replaces only the part after the last one: drop that much of each reply.
_kvcat_after_wordbreak() {
    local typed=$1 i cut=0
    for ((i = 0; i < ${#typed}; i++)); do
        [[ ${COMP_WORDBREAKS-} == *"${typed:i:1}"* ]] && cut=$((i + 1))
    done
    ((cut == 0)) && return 0
    local prefix=${typed:0:cut}
    for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$prefix"}; done
}

# The word under the cursor as typed, up to the cursor: COMP_WORDS has it split at = and :.
_kvcat_typed() {
    if [[ -n ${COMP_LINE-} ]]; then
        local line=${COMP_LINE:0:COMP_POINT}
        printf '%s' "${line##*[[:space:]]}"
    else
        printf '%s' "${COMP_WORDS[COMP_CWORD]}"
    fi
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

    # The value of an option that names records: ids from the catalog. curve's --accelerator
    # takes a comma list.
    if [[ $prev == --model || $prev == --accelerator ]]; then
        local kind=models prefix=""
        [[ $prev == --accelerator ]] && kind=accelerators
        [[ $cur == *,* ]] && prefix="${cur%,*},"
        _kvcat_offer "$prefix" "${cur##*,}" "$(_kvcat_catalog "$prog" ids "$kind")"
        [[ $prev == --accelerator && $sub == curve ]] && compopt -o nospace 2>/dev/null
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
            # A filter: a column name, then after = or != the values the catalog holds in that
            # column (a comma list is any of them). Other operators take the user's own value.
            local typed
            typed=$(_kvcat_typed)
            if [[ $typed =~ ^([a-z_]+)(!?=)(.*)$ ]]; then
                local head="${BASH_REMATCH[1]}${BASH_REMATCH[2]}" value=${BASH_REMATCH[3]}
                [[ $value == *,* ]] && head+="${value%,*}," && value=${value##*,}
                _kvcat_offer "$head" "$value" "$(_kvcat_catalog "$prog" values "${BASH_REMATCH[1]}")"
                _kvcat_after_wordbreak "$typed"
                return 0
            fi
            mapfile -t COMPREPLY < <(compgen -W "$(_kvcat_columns "$prog")" -- "$cur")
            compopt -o nospace 2>/dev/null || true ;;
        explain)
            # A record id, or a record file once the word looks like a path.
            _kvcat_offer "" "$cur" "$(_kvcat_catalog "$prog" ids records)"
            if [[ $cur == */* || $cur == .* ]]; then
                local files=()
                mapfile -t files < <(compgen -f -- "$cur")
                COMPREPLY+=("${files[@]}")
                compopt -o filenames 2>/dev/null || true
            fi ;;
        lint | build)
            compopt -o filenames 2>/dev/null || true
            mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    esac
    return 0
}

# kvcat on PATH, and the binary as a checkout builds it (bash matches the word as typed).
complete -F _kvcat kvcat build/release/kvcat ./build/release/kvcat
