#include "cli/command_line.h"

namespace cordon::cli {

bool split_command(const std::vector<std::string>& args, std::vector<std::string>& options,
                   std::vector<std::string>& command) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      options.assign(args.begin(), args.begin() + static_cast<long>(i));
      command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      return true;
    }
  }
  return false;
}

}  // namespace cordon::cli
