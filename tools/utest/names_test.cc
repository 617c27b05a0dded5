// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The name lists (SROCE_FOO_LIST in include/sroce): the core's name
// functions give each enumerator the name its list entry gives it, that
// name spells the enumerator, and every rule a core tags a decision with
// has its line in kunit/spec-rules.txt (which tools/rule-coverage.sh
// checks against the KUnit cases that ran).
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sroce/core_abi.h>
#include <sroce/mw_abi.h>
#include <sroce/sq_abi.h>
#include <sroce/uc_abi.h>
#include <sroce/ud_abi.h>

namespace {

struct Entry {
  int value;
  const char* id;
  const char* name;
};

#define ENTRY(id, name) {id, #id, name},
#define ENTRY_VALUE(id, value, name) {id, #id, name},

struct List {
  const char* what;
  const char* prefix;  // the enumerators' prefix
  const char* tag;     // a rule tag's prefix the enumerators leave out ("uc-")
  bool rules;          // rule tags: each has its line in kunit/spec-rules.txt
  int count;
  const char* (*name_of)(uint8_t);
  std::vector<Entry> entries;
};

const std::vector<List>& Lists() {
  static const std::vector<List> lists = {
      {"SROCE_RESP_KIND_LIST", "SROCE_RESP_", "", false, SROCE_RESP_KIND_COUNT,
       sroce_resp_kind_name, {SROCE_RESP_KIND_LIST(ENTRY_VALUE)}},
      {"SROCE_ACTION_LIST", "SROCE_ACT_", "", false, SROCE_ACT_COUNT, sroce_action_name,
       {SROCE_ACTION_LIST(ENTRY_VALUE)}},
      {"SROCE_DROP_REASON_LIST", "SROCE_DROP_", "", false, SROCE_DROP_REASON_COUNT,
       sroce_drop_reason_name, {SROCE_DROP_REASON_LIST(ENTRY)}},
      {"SROCE_RULE_LIST", "SROCE_RULE_", "", true, SROCE_RULE_COUNT, sroce_rule_name,
       {SROCE_RULE_LIST(ENTRY)}},
      {"SROCE_WC_STATUS_LIST", "SROCE_WC_", "", false, SROCE_WC_STATUS_COUNT,
       sroce_wc_status_name, {SROCE_WC_STATUS_LIST(ENTRY_VALUE)}},
      {"SROCE_BLOCK_REASON_LIST", "SROCE_BLK_", "", false, SROCE_BLK_REASON_COUNT,
       sroce_block_reason_name, {SROCE_BLOCK_REASON_LIST(ENTRY)}},
      {"SROCE_COMP_DROP_LIST", "SROCE_CDROP_", "", false, SROCE_CDROP_REASON_COUNT,
       sroce_comp_drop_name, {SROCE_COMP_DROP_LIST(ENTRY)}},
      {"SROCE_SQ_RULE_LIST", "SROCE_SQR_", "", true, SROCE_SQR_COUNT, sroce_sq_rule_name,
       {SROCE_SQ_RULE_LIST(ENTRY)}},
      {"SROCE_UC_DROP_LIST", "SROCE_UCDROP_", "", false, SROCE_UCDROP_REASON_COUNT,
       sroce_uc_drop_name, {SROCE_UC_DROP_LIST(ENTRY)}},
      {"SROCE_UC_RULE_LIST", "SROCE_UCR_", "uc-", true, SROCE_UCR_COUNT, sroce_uc_rule_name,
       {SROCE_UC_RULE_LIST(ENTRY)}},
      {"SROCE_UD_DROP_LIST", "SROCE_UDROP_", "", false, SROCE_UDROP_REASON_COUNT,
       sroce_ud_drop_name, {SROCE_UD_DROP_LIST(ENTRY)}},
      {"SROCE_UD_RULE_LIST", "SROCE_UDR_", "ud-", true, SROCE_UDR_COUNT, sroce_ud_rule_name,
       {SROCE_UD_RULE_LIST(ENTRY)}},
      {"SROCE_MW_RULE_LIST", "SROCE_MWR_", "mw-", true, SROCE_MWR_COUNT, sroce_mw_rule_name,
       {SROCE_MW_RULE_LIST(ENTRY)}},
  };
  return lists;
}

#undef ENTRY
#undef ENTRY_VALUE

// The enumerator a name spells: "C9-150.2.1" SROCE_RULE_C9_150_2_1,
// "9.7.5.1.5-seq-nak" (a section leads) SROCE_SQR_SEQ_NAK, "uc-psn"
// SROCE_UCR_PSN, "rnr_nak" SROCE_RESP_RNR_NAK.
std::string Spelt(const List& l, std::string name) {
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])))
    name = name.substr(name.find('-') + 1);
  if (name.rfind(l.tag, 0) == 0) name = name.substr(std::strlen(l.tag));
  for (char& c : name) c = c == '-' || c == '.' ? '_' : static_cast<char>(std::toupper(c));
  return l.prefix + name;
}

TEST(NameLists, EachNameIsItsEnumerators) {
  for (const List& l : Lists()) {
    SCOPED_TRACE(l.what);
    ASSERT_EQ(l.entries.size(), static_cast<size_t>(l.count));
    for (size_t i = 0; i < l.entries.size(); i++) {
      const Entry& e = l.entries[i];
      EXPECT_EQ(e.value, static_cast<int>(i)) << e.id;
      EXPECT_STREQ(l.name_of(static_cast<uint8_t>(e.value)), e.name) << e.id;
      EXPECT_EQ(Spelt(l, e.name), e.id) << "\"" << e.name << "\"";
    }
    EXPECT_STREQ(l.name_of(static_cast<uint8_t>(l.count)), "invalid");
  }
}

// The tags of kunit/spec-rules.txt, its lines' first fields.
std::set<std::string> SpecRules() {
  std::ifstream in(SROCE_SPEC_RULES);
  EXPECT_TRUE(in) << SROCE_SPEC_RULES;
  std::set<std::string> tags;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    tags.insert(line.substr(0, line.find('\t')));
  }
  return tags;
}

TEST(NameLists, EveryRuleHasItsSpecRulesLine) {
  std::set<std::string> tags = SpecRules();
  for (const List& l : Lists()) {
    if (!l.rules) continue;
    for (size_t i = 1; i < l.entries.size(); i++)  // [0] is "none"
      EXPECT_EQ(tags.count(l.entries[i].name), 1u)
          << l.what << ": " << l.entries[i].name << " has no line in kunit/spec-rules.txt";
  }
}

// The other way: a line is a rule of a list, or a tag of the responder's
// spec that no decision carries (tools/rule-coverage.sh matches those
// against the spec, with this pattern).
TEST(NameLists, EverySpecRulesLineIsARule) {
  std::set<std::string> rules;
  for (const List& l : Lists())
    if (l.rules)
      for (const Entry& e : l.entries) rules.insert(e.name);
  const std::regex spec_tag("[Co]9-[0-9]+(\\.[0-9]+)*(\\.a[0-9])?");
  for (const std::string& tag : SpecRules())
    EXPECT_TRUE(rules.count(tag) || std::regex_match(tag, spec_tag))
        << tag << ": in kunit/spec-rules.txt, but no list's rule nor a spec tag";
}

}  // namespace
