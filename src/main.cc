// kvcat: the command line is cmd/kvcat_main, in the commands' library, where the fuzz target of
// the whole command line calls it too.
#include "cmd/kvcat_main.h"

int main(int argc, char** argv) {
    return kvcat::cmd::kvcat_main(argc, argv);
}
