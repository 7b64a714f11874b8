#include "cmd/run_command.h"

#include <exception>

#include <spdlog/spdlog.h>

namespace kvcat::cmd {

int run_command(const std::function<int()>& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
    } catch (...) {
        spdlog::error("an unknown error stopped the command");
    }
    return ExitCode::failure;
}

}  // namespace kvcat::cmd
