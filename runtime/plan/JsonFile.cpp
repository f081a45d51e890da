// File I/O for plan and bundle documents.
#include "runtime/plan/JsonFile.h"

#include "runtime/plan/PlanError.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace collplan {

nlohmann::json readJsonFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError(path, "", std::string("cannot open file: ") + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw PlanError(path, "", "cannot read file");
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error &e) {
    throw PlanError(path, "", std::string("not valid JSON: ") + e.what());
  }
}

void writeJsonFile(const nlohmann::json &json, const std::string &path) {
  std::string text;
  try {
    text = json.dump(1);
  } catch (const nlohmann::json::exception &e) {
    throw PlanError(path, "", std::string("cannot serialise: ") + e.what());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw PlanError(path, "", std::string("cannot create file: ") + std::strerror(errno));
  out << text << '\n';
  out.close();
  if (!out) throw PlanError(path, "", "cannot write file");
}

}  // namespace collplan
