// One function per subcommand. Each takes the arguments after its name and
// returns the process exit code; errors are printed once, here in cli/.
#pragma once

#include <string>
#include <vector>

namespace cordon::cli {

int cmd_trace(const std::vector<std::string>& args);
int cmd_show(const std::vector<std::string>& args);
int cmd_merge(const std::vector<std::string>& args);
int cmd_upgrade(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_doctor(const std::vector<std::string>& args);
int cmd_draft(const std::vector<std::string>& args);
int cmd_diff(const std::vector<std::string>& args);
int cmd_why(const std::vector<std::string>& args);
int cmd_policy(const std::vector<std::string>& args);
int cmd_learn(const std::vector<std::string>& args);

// `cordon: <what>` on stderr, one line.
void report(const std::string& what);

}  // namespace cordon::cli
