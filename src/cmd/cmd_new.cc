#include "cmd/commands.h"

namespace kvcat::cmd {

void setup_new(CLI::App&, int&) {}

}  // namespace kvcat::cmd
