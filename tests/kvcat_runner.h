// Runs the built kvcat binary as a user would, in a scratch directory holding a copy of the
// shipped records, with a clean environment for the variables kvcat reads (GITHUB_ACTIONS,
// NO_COLOR, COLUMNS) so a test means the same on a laptop and under GitHub Actions.
// Header-only; needs KVCAT_BUILT_BINARY and KVCAT_SOURCE_DIR.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

namespace kvcat::test {

struct Outcome {
    int status = -1;
    std::string out;
    std::string err;
};

/// 'text' for sh, with any single quote inside escaped.
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

/// Runs a shell command line; the exit status, or -1 when it did not exit normally.
inline int run_shell(const std::string& command) {
    int raw = std::system(command.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

class KvcatRunner {
  public:
    /// With `with_records`, the scratch directory starts with a copy of the seed catalog
    /// (tests/fixtures/seed-catalog/records, the catalog as first shipped): the expected rows
    /// stay fixed while records/ grows.
    explicit KvcatRunner(bool with_records = true) {
        if (with_records) {
            fs::copy(fs::path(KVCAT_FIXTURES_DIR) / "seed-catalog/records", dir() / "records",
                     fs::copy_options::recursive);
        }
    }

    const fs::path& dir() const { return tmp_.path(); }

    /// Runs kvcat with `args` in dir(); `env` adds NAME=value pairs to the clean environment.
    Outcome run(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) const {
        return run_wrapped(args, env, "");
    }

    /// The same, under util-linux `script`, so stdout is a pseudo-terminal. The terminal has
    /// no size (script's stdin is not a terminal), so $COLUMNS is what sets the width.
    Outcome run_on_terminal(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) const {
        return run_wrapped(args, env, "script");
    }

    /// The same, killed after `seconds`: for a test whose failure would be a run that never ends.
    /// A killed run has status 128 + 9.
    Outcome run_guarded(const std::vector<std::string>& args, int seconds) const {
        return run_wrapped(args, {}, "timeout -s KILL " + std::to_string(seconds));
    }

  private:
    Outcome run_wrapped(const std::vector<std::string>& args, const std::vector<std::string>& env,
                        const std::string& wrapper) const {
        std::string kvcat = shell_quote(::kvcat::test::kvcat_binary());
        for (const auto& a : args) {
            kvcat += ' ';
            kvcat += shell_quote(a);
        }
        std::string prefix = "env -u GITHUB_ACTIONS -u NO_COLOR -u COLUMNS";
        for (const auto& e : env) {
            prefix += ' ';
            prefix += shell_quote(e);
        }
        std::string out = shell_quote((dir() / ".stdout").string());
        std::string err = shell_quote((dir() / ".stderr").string());
        std::string cmd = "cd " + shell_quote(dir().string()) + " && ";
        if (wrapper == "script") {
            // Only stdout is the terminal: stderr goes to its file from inside, so logs stay
            // out of the output. -e: script exits with the command's status. The pty turns
            // \n into \r\n.
            cmd +=
                "script -qec " + shell_quote(prefix + " " + kvcat + " 2>" + err) + " /dev/null >" + out + " </dev/null";
        } else if (wrapper.starts_with("timeout ")) {
            cmd += wrapper + " " + prefix + " " + kvcat + " >" + out + " 2>" + err + " </dev/null";
        } else {
            cmd += prefix + " " + kvcat + " >" + out + " 2>" + err + " </dev/null";
        }
        Outcome r;
        r.status = run_shell(cmd);
        r.out = read_file(dir() / ".stdout");
        r.err = read_file(dir() / ".stderr");
        return r;
    }

    TempDir tmp_;
};

/// kvcat fit for Qwen3-32B on one RTX 3090 of the shipped records (records/), its weights given as
/// --weight-quant `quant`, with `extra`: the start most of fit's tests ask about.
inline Outcome fit_qwen3_32b_on_3090(const std::string& quant, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"fit",
                                     "--records",
                                     (fs::path(KVCAT_SOURCE_DIR) / "records").string(),
                                     "--model",
                                     "qwen3-32b",
                                     "--accelerator",
                                     "nvidia-rtx-3090",
                                     "--weight-quant",
                                     quant};
    args.insert(args.end(), extra.begin(), extra.end());
    return KvcatRunner(false).run(args);
}

}  // namespace kvcat::test
