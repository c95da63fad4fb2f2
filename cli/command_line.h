// Pieces of command-line handling shared by the subcommands.
#pragma once

#include <string>
#include <vector>

namespace cordon::cli {

// Splits `OPTIONS -- CMD [ARG...]` at the first `--`; false when there is none.
bool split_command(const std::vector<std::string>& args, std::vector<std::string>& options,
                   std::vector<std::string>& command);

}  // namespace cordon::cli
