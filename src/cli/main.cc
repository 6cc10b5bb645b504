#include "cli/commands.h"

int main(int argc, char** argv) { return allot::cli::Main(argc, argv); }
