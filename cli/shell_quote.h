// Shell-quoting for showing a command line to a person.
#pragma once

#include <string>
#include <vector>

namespace cordon::cli {

std::string shell_quote(const std::string& arg);
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace cordon::cli
