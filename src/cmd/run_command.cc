#include "cmd/run_command.h"

#include <exception>
#include <new>

#include <spdlog/spdlog.h>

namespace kvcat::cmd {

int run_command(const std::function<int()>& body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        // The library's own text ("std::bad_alloc") says nothing to a user.
        spdlog::error("the command ran out of memory: an input is far larger than the command can hold");
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
    } catch (...) {
        spdlog::error("an unknown error stopped the command");
    }
    return ExitCode::failure;
}

}  // namespace kvcat::cmd
