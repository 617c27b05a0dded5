// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Loopback stream test under GoogleTest: every link profile with many
// seeds, through the same C implementation the KUnit suite
// sroce_loopback runs (kunit/cases/loopback*.c; see loopback.h for what
// it checks).  Every check it makes is an EXPECT_EQ naming the profile,
// the seed and the round.  KUnit's "<profile> seed <n>" is the same run
// as <profile>_seed<n> here.
//
//   LOOPBACK_SEEDS=N   seeds 1..N per profile (default 40, also a -D)
//   LOOP_TRACE=1       print every packet, decision and loss
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "loopback.h"

namespace {

#ifndef LOOPBACK_SEEDS
#define LOOPBACK_SEEDS 40
#endif

uint32_t Seeds() {
  const char* env = getenv("LOOPBACK_SEEDS");
  if (env && *env) {
    long n = strtol(env, nullptr, 10);
    if (n > 0) return static_cast<uint32_t>(n);
  }
  return LOOPBACK_SEEDS;
}

struct RunName {
  const char* profile;
  uint32_t seed;
};

void Check(void* ctx, const char* what, uint32_t round, uint64_t expected, uint64_t actual) {
  const RunName* r = static_cast<const RunName*>(ctx);
  EXPECT_EQ(expected, actual) << r->profile << " seed " << r->seed << " round " << round << ": "
                              << what;
}

void Trace(void*, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
}

class LoopbackTest : public ::testing::TestWithParam<::testing::tuple<int, uint32_t>> {};

TEST_P(LoopbackTest, EveryWqeOnceInOrderAndGoBackN) {
  const sroce_loop_profile& p = sroce_loop_profiles[::testing::get<0>(GetParam())];
  RunName run{p.name, ::testing::get<1>(GetParam())};
  const sroce_case_checker chk{&run, Check};
  const sroce_loop_tracer tr{nullptr, Trace};
  // About 2 MiB: on the heap.
  std::unique_ptr<sroce_loop_ws> ws(new sroce_loop_ws);
  uint64_t failed =
      sroce_loop_run(ws.get(), &p, run.seed, 0, &chk, getenv("LOOP_TRACE") ? &tr : nullptr);
  EXPECT_EQ(failed, 0u);
  EXPECT_GT(ws->checks, 0u);
  RecordProperty("checks", std::to_string(ws->checks));
  RecordProperty("rounds", std::to_string(ws->rounds));
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, LoopbackTest,
    ::testing::Combine(::testing::Range(0, static_cast<int>(SROCE_LOOP_NPROFILES)),
                       ::testing::Range(1u, Seeds() + 1)),
    [](const ::testing::TestParamInfo<LoopbackTest::ParamType>& i) {
      return std::string(sroce_loop_profiles[::testing::get<0>(i.param)].name) + "_seed" +
             std::to_string(::testing::get<1>(i.param));
    });

}  // namespace
