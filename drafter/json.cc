// The fragment as data: the same content as the text, with every count and
// the first event (run and seq) behind each operation. Strings are bytes in
// util::printable form, JSON-quoted (util/json.h).
#include <fmt/core.h>

#include "drafter/drafter.h"
#include "util/json.h"

namespace cordon::drafter {
namespace {

using util::json_string;

template <typename T, typename F>
std::string array(const std::vector<T>& items, F&& one, std::string_view indent) {
  if (items.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += fmt::format("{}  {}", indent, one(items[i]));
  }
  return out + fmt::format("\n{}]", indent);
}

std::string strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

std::string op(const OpCount& o, const Draft& d) {
  const RunRef& r = d.runs[o.run];
  return fmt::format(
      "{{\"op\": {}, \"count\": {}, \"first\": {{\"trace\": {}, \"run\": {}, \"seq\": {}}}}}",
      json_string(o.op), o.count, json_string(r.trace), r.run_id, o.first_seq);
}

std::string ops(const std::vector<OpCount>& list, const Draft& d) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + op(list[i], d);
  return out + "]";
}

std::string path_ops(const PathOps& p, const Draft& d) {
  return fmt::format("{{\"path\": {}, \"operations\": {}}}", json_string(p.path), ops(p.ops, d));
}

}  // namespace

std::string format_json(const Draft& d) {
  std::string out = "{\n";
  out += "  \"runs\": " +
         array(
             d.runs,
             [](const RunRef& r) {
               return fmt::format(
                   "{{\"trace\": {}, \"run\": {}, \"argv\": {}, \"cwd\": {}, \"home\": {}, "
                   "\"state\": {}, "
                   "\"exit_code\": {}}}",
                   json_string(r.trace), r.run_id, strings(r.argv), json_string(r.cwd),
                   json_string(r.home), json_string(r.state),
                   r.exit_code ? std::to_string(*r.exit_code) : "null");
             },
             "  ") +
         ",\n";
  out += "  \"grants\": " +
         array(
             d.grants,
             [&](const Grant& g) {
               std::string covers = "[";
               for (size_t i = 0; i < g.covers.size(); ++i)
                 covers += (i ? ", " : "") + path_ops(g.covers[i], d);
               covers += "]";
               return fmt::format(
                   "{{\"kind\": {}, \"path\": {}, \"written\": {}, \"enabled\": {}, "
                   "\"operations\": {}, "
                   "\"covers\": {}, \"notes\": {}, \"review\": {}}}",
                   json_string(g.access == Access::kWrite ? "allow_write" : "allow_read"),
                   json_string(g.path), json_string(g.written), g.commented_out ? "false" : "true",
                   ops(g.ops, d), covers, strings(g.notes), strings(g.review));
             },
             "  ") +
         ",\n";
  out += "  \"net\": " +
         array(
             d.net,
             [&](const NetGrant& n) {
               return fmt::format(
                   "{{\"kind\": {}, \"value\": {}, \"operations\": [{}], \"review\": {}}}",
                   json_string(n.kind), json_string(n.value), op(n.seen, d), strings(n.review));
             },
             "  ") +
         ",\n";
  out += "  \"conflicts\": " +
         array(
             d.conflicts,
             [](const Conflict& c) {
               return fmt::format(
                   "{{\"path\": {}, \"rule\": {}, \"origin\": {}, \"layer\": {}, \"what\": {}}}",
                   json_string(c.path), json_string(c.rule), json_string(c.origin),
                   json_string(c.layer), json_string(c.what));
             },
             "  ") +
         ",\n";
  out += "  \"review\": " +
         array(
             d.review,
             [](const ReviewItem& r) {
               return fmt::format("{{\"path\": {}, \"reason\": {}}}", json_string(r.path),
                                  json_string(r.reason));
             },
             "  ") +
         ",\n";
  out += "  \"passed_through\": " + strings(d.passed_through) + ",\n";
  out += "  \"not_granted\": " +
         array(
             d.not_found, [&](const PathOps& p) { return path_ops(p, d); }, "  ") +
         ",\n";
  auto endpoint = [](const Endpoint& e) {
    return fmt::format("{{\"address\": {}, \"count\": {}}}", json_string(e.address), e.count);
  };
  out += "  \"loopback\": " + array(d.loopback, endpoint, "  ") + ",\n";
  out += "  \"abstract_sockets\": " + array(d.abstract_sockets, endpoint, "  ") + ",\n";
  out += "  \"notes\": " + strings(d.notes) + "\n}\n";
  return out;
}

}  // namespace cordon::drafter
