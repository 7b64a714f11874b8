#include "cmd/commands.h"

namespace kvcat::cmd {

void setup_import_config(CLI::App&, int&) {}

}  // namespace kvcat::cmd
