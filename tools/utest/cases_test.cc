// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The KUnit case tables (kunit/cases/), run through the core in userspace
// under ASan and UBSan.  One GoogleTest per table row; every comparison
// the shared runner makes is an EXPECT_EQ.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "utest_cases.h"

namespace {

void GtestCheck(void*, const char* what, uint32_t step, uint64_t expected, uint64_t actual) {
  EXPECT_EQ(expected, actual) << "step " << step << ": " << what;
}

const sroce_case_checker kChecker = {nullptr, GtestCheck};

std::string Sanitize(const char* name) {
  std::string out;
  for (const char* p = name; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

struct CaseParam {
  const char* suite;
  const sroce_case* c;
};

std::vector<CaseParam> AllCases() {
  std::vector<CaseParam> v;
  for (unsigned s = 0; s < sroce_nsuites; s++)
    for (unsigned i = 0; i < sroce_suites[s].n; i++)
      v.push_back({sroce_suites[s].name, &sroce_suites[s].cases[i]});
  return v;
}

void PrintTo(const CaseParam& p, std::ostream* os) { *os << p.suite << ": " << p.c->name; }

class Responder : public ::testing::TestWithParam<CaseParam> {};

TEST_P(Responder, Case) {
  sroce_case_ws ws{};
  ASSERT_GT(GetParam().c->nsteps, 0u);
  sroce_case_run(GetParam().c, &ws, &kChecker);
}

INSTANTIATE_TEST_SUITE_P(Tables, Responder, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<CaseParam>& i) {
                           return std::string(i.param.suite) + "_" + Sanitize(i.param.c->name);
                         });

struct SqCaseParam {
  const char* suite;
  const sroce_sq_case* c;
};

std::vector<SqCaseParam> AllSqCases() {
  std::vector<SqCaseParam> v;
  for (unsigned s = 0; s < sroce_sq_nsuites; s++)
    for (unsigned i = 0; i < sroce_sq_suites[s].n; i++)
      v.push_back({sroce_sq_suites[s].name, &sroce_sq_suites[s].cases[i]});
  return v;
}

void PrintTo(const SqCaseParam& p, std::ostream* os) { *os << p.suite << ": " << p.c->name; }

// The requester and completer tables (kunit/cases/sq_*.h).
class SendQueue : public ::testing::TestWithParam<SqCaseParam> {};

TEST_P(SendQueue, Case) {
  sroce_sq_case_ws ws{};
  ASSERT_GT(GetParam().c->nsteps, 0u);
  ASSERT_LT(strlen(GetParam().c->name), 128u) << "KUnit truncates descriptions at 128";
  sroce_sq_case_run(GetParam().c, &ws, &kChecker);
}

INSTANTIATE_TEST_SUITE_P(Tables, SendQueue, ::testing::ValuesIn(AllSqCases()),
                         [](const ::testing::TestParamInfo<SqCaseParam>& i) {
                           return std::string(i.param.suite) + "_" + Sanitize(i.param.c->name);
                         });

class CreditCode : public ::testing::TestWithParam<const sroce_credit_case*> {};
TEST_P(CreditCode, C9_150_2_1_EncodesPostedWqes) {
  sroce_case_ws ws{};
  sroce_credit_case_run(GetParam(), &ws, &kChecker);
}
std::vector<const sroce_credit_case*> CreditRows() {
  std::vector<const sroce_credit_case*> v;
  for (unsigned i = 0; i < sroce_ncredit; i++) v.push_back(&sroce_credit_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Table44, CreditCode, ::testing::ValuesIn(CreditRows()),
                         [](const ::testing::TestParamInfo<const sroce_credit_case*>& i) {
                           return "posted_" + std::to_string(i.param->posted);
                         });

class PsnArith : public ::testing::TestWithParam<const sroce_psn_case*> {};
TEST_P(PsnArith, Wraps) {
  sroce_case_ws ws{};
  sroce_psn_case_run(GetParam(), &ws, &kChecker);
}
std::vector<const sroce_psn_case*> PsnRows() {
  std::vector<const sroce_psn_case*> v;
  for (unsigned i = 0; i < sroce_npsn; i++) v.push_back(&sroce_psn_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Psn24, PsnArith, ::testing::ValuesIn(PsnRows()),
                         [](const ::testing::TestParamInfo<const sroce_psn_case*>& i) {
                           return Sanitize(i.param->name);
                         });

class AethSyndrome : public ::testing::TestWithParam<const sroce_aeth_case*> {};
TEST_P(AethSyndrome, Encodes) { sroce_aeth_case_run(GetParam(), &kChecker); }
std::vector<const sroce_aeth_case*> AethRows() {
  std::vector<const sroce_aeth_case*> v;
  for (unsigned i = 0; i < sroce_naeth; i++) v.push_back(&sroce_aeth_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Aeth, AethSyndrome, ::testing::ValuesIn(AethRows()),
                         [](const ::testing::TestParamInfo<const sroce_aeth_case*>& i) {
                           return Sanitize(i.param->name);
                         });

// The UD receive decisions (kunit/cases/ud.h).
class UdReceive : public ::testing::TestWithParam<const sroce_ud_case*> {};
TEST_P(UdReceive, Case) { sroce_ud_case_run(GetParam(), &kChecker); }
std::vector<const sroce_ud_case*> UdRows() {
  std::vector<const sroce_ud_case*> v;
  for (unsigned i = 0; i < sroce_nud; i++) v.push_back(&sroce_ud_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Ud, UdReceive, ::testing::ValuesIn(UdRows()),
                         [](const ::testing::TestParamInfo<const sroce_ud_case*>& i) {
                           return Sanitize(i.param->name);
                         });

class UdQkey : public ::testing::TestWithParam<const sroce_ud_qkey_case*> {};
TEST_P(UdQkey, Case) { sroce_ud_qkey_case_run(GetParam(), &kChecker); }
std::vector<const sroce_ud_qkey_case*> UdQkeyRows() {
  std::vector<const sroce_ud_qkey_case*> v;
  for (unsigned i = 0; i < sroce_nud_qkey; i++) v.push_back(&sroce_ud_qkey_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Ud, UdQkey, ::testing::ValuesIn(UdQkeyRows()),
                         [](const ::testing::TestParamInfo<const sroce_ud_qkey_case*>& i) {
                           return Sanitize(i.param->name);
                         });

// The UC receive decisions (kunit/cases/uc.h).
class UcReceive : public ::testing::TestWithParam<const sroce_uc_case*> {};
TEST_P(UcReceive, Case) { sroce_uc_case_run(GetParam(), &kChecker); }
std::vector<const sroce_uc_case*> UcRows() {
  std::vector<const sroce_uc_case*> v;
  for (unsigned i = 0; i < sroce_nuc; i++) v.push_back(&sroce_uc_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Uc, UcReceive, ::testing::ValuesIn(UcRows()),
                         [](const ::testing::TestParamInfo<const sroce_uc_case*>& i) {
                           return Sanitize(i.param->name);
                         });

// The memory window decisions (kunit/cases/mw.h).
class MwDecision : public ::testing::TestWithParam<const sroce_mw_case*> {};
TEST_P(MwDecision, Case) { sroce_mw_case_run(GetParam(), &kChecker); }
std::vector<const sroce_mw_case*> MwRows() {
  std::vector<const sroce_mw_case*> v;
  for (unsigned i = 0; i < sroce_nmw; i++) v.push_back(&sroce_mw_table[i]);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Mw, MwDecision, ::testing::ValuesIn(MwRows()),
                         [](const ::testing::TestParamInfo<const sroce_mw_case*>& i) {
                           return Sanitize(i.param->name);
                         });

}  // namespace
