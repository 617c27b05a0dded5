// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The cost of one response decision: sroce_resp_rx() plus, for a new
// request, sroce_resp_executed(), with the responses pulled as the driver
// would; and of one request packet built and one ACK processed.  Google Benchmark reports ns per decision; for instructions per
// decision run it under callgrind in count mode:
//
//   valgrind --tool=callgrind --toggle-collect=sroce_resp_rx
//            --toggle-collect=sroce_resp_executed sroce_bench --count BM_InOrderSend N
//
// tools/utest/run.sh bench does both for every row of bench-budgets.txt
// and prints the table; run.sh bench-check fails on a row over budget.
// A new workload is one entry in kWorkloads plus one budgets line.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sroce/core_abi.h>
#include <sroce/psn.h>
#include <sroce/sq_abi.h>

namespace {

enum Workload { kSend, kWrite, kRead, kDupSend };

struct Bench {
  sroce_resp_qp qp{};
  sroce_rd_res res[16]{};
  uint32_t psn = 0;
  uint32_t n = 0;

  explicit Bench(Workload w) : w_(w) {
    sroce_resp_params p{};
    p.pmtu = 1024;
    p.ack_coalesce_max = 16;
    p.ack_span_max = 64;
    sroce_resp_init(&qp, &p, res, 16);
    sroce_resp_set_credits(&qp, 100);
    if (w == kDupSend) {  // complete 64 SENDs, then replay them forever
      for (int i = 0; i < 64; i++) {
        Decide(SROCE_OP_SEND_ONLY, false);
        psn = sroce_resp_expected_psn(&qp);
      }
      psn = 0;
    }
  }

  void Decide(uint8_t opcode, bool ackreq) {
    sroce_resp_req q{};
    q.opcode = opcode;
    q.psn = psn;
    q.ackreq = ackreq;
    q.payload_len = opcode == SROCE_OP_READ_REQUEST ? 0 : 64;
    q.dma_len = opcode == SROCE_OP_WRITE_ONLY ? 64 : opcode == SROCE_OP_READ_REQUEST ? 512 : 0;
    q.verdict = sroce_resp_classify(&qp, psn);
    sroce_resp_ret r = sroce_resp_rx(&qp, &q);
    if (r.action == SROCE_ACT_EXECUTE) {
      sroce_exec e{};
      sroce_resp_executed(&qp, &e);
    }
  }

  // One decision of the workload, RX batches of 16 as in the driver.
  void Step() {
    if ((n & 15) == 0) sroce_resp_batch_begin(&qp);
    switch (w_) {
      case kSend:
        Decide(SROCE_OP_SEND_ONLY, true);
        break;
      case kWrite:
        Decide(SROCE_OP_WRITE_ONLY, true);
        break;
      case kRead:
        Decide(SROCE_OP_READ_REQUEST, true);
        break;
      case kDupSend:
        Decide(SROCE_OP_SEND_ONLY, false);
        break;
    }
    psn = w_ == kDupSend ? (psn + 1) & 63 : sroce_resp_expected_psn(&qp);
    if ((n & 15) == 15) sroce_resp_batch_end(&qp);
    sroce_resp_desc d;
    while (sroce_resp_pull(&qp, &d)) benchmark::DoNotOptimize(d);
    n++;
  }

 private:
  Workload w_;
};

template <Workload W>
void RunResponder(benchmark::State& state) {
  Bench b(W);
  for (auto _ : state) b.Step();
  state.SetItemsProcessed(state.iterations());
}

template <Workload W>
void CountResponder(long count) {
  Bench b(W);
  for (long i = 0; i < count; i++) b.Step();
}

// The requester and completer in steady state: 64-byte WRITEs, one
// packet each, ACKed four WQEs at a time (the window never closes).
// Unit kPacket: one sroce_req_next() that builds a packet; unit kAck: one
// ACK through sroce_comp_rx() and the four completions it retires.
enum SqWorkload { kPacket, kAck };

struct SqBench {
  static constexpr uint32_t kSlots = 64;
  static constexpr uint32_t kPerAck = 4;
  sroce_sq_qp sq{};
  sroce_sq_wqe ring[kSlots]{};
  uint32_t sent = 0;

  SqBench() {
    sroce_sq_params p{};
    p.pmtu = 1024;
    p.window = 256;
    p.ackreq_every = 32;
    p.max_rd_atomic = 16;
    p.timeout = 14;
    p.retry_cnt = 7;
    p.rnr_retry = 7;
    p.hold_tail = 1;  // the driver's default
    sroce_sq_init(&sq, &p, ring, kSlots);
  }

  void Post() {
    while (sroce_sq_room(&sq)) {
      sroce_sq_wqe& w = ring[sroce_sq_producer(&sq) % kSlots];
      w = sroce_sq_wqe{};
      w.op = SROCE_WR_WRITE;
      w.length = 64;
      w.remote_va = 0x1000;
      w.rkey = 7;
      sroce_req_post(&sq, 1);
    }
  }

  void Packet() {
    sroce_req_pkt pkt;
    sroce_sq_ret r = sroce_req_next(&sq, &pkt);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(pkt);
    sent++;
  }

  void Ack() {
    sroce_comp_pkt a{};
    a.opcode = SROCE_OP_ACKNOWLEDGE;
    a.psn = sroce_psn_add(sroce_sq_acked_psn(&sq), kPerAck);
    a.msn = sent;
    a.syndrome = 0x1f;
    sroce_comp_place pl;
    sroce_sq_ret r = sroce_comp_rx(&sq, &a, &pl);
    benchmark::DoNotOptimize(r);
    sroce_sq_cqe c;
    while (sroce_comp_pull(&sq, &c)) benchmark::DoNotOptimize(c);
  }

  // kPerAck packets, then the ACK for them.
  void Round() {
    Post();
    for (uint32_t i = 0; i < kPerAck; i++) Packet();
    Ack();
  }
};

template <SqWorkload W>
void RunSq(benchmark::State& state) {
  SqBench b;
  for (auto _ : state) b.Round();
  state.SetItemsProcessed(state.iterations() * (W == kPacket ? SqBench::kPerAck : 1));
}

template <SqWorkload W>
void CountSq(long units) {
  SqBench b;
  for (long i = 0; i < (W == kPacket ? units / SqBench::kPerAck : units); i++) b.Round();
}

// Every workload: its Google Benchmark, and the same loop without the
// benchmark library for callgrind (--count NAME N: N units of work).
struct Entry {
  const char* name;       // the benchmark name, as in bench-budgets.txt
  const char* alias;      // short name, also accepted by --count
  void (*run)(benchmark::State&);
  void (*count)(long units);
};

const Entry kWorkloads[] = {
    {"BM_InOrderSend", "send", RunResponder<kSend>, CountResponder<kSend>},
    {"BM_InOrderWrite", "write", RunResponder<kWrite>, CountResponder<kWrite>},
    {"BM_InOrderRead", "read", RunResponder<kRead>, CountResponder<kRead>},
    {"BM_DuplicateSend", "dup", RunResponder<kDupSend>, CountResponder<kDupSend>},
    {"BM_ReqPacket", "req", RunSq<kPacket>, CountSq<kPacket>},
    {"BM_CompAck", "comp", RunSq<kAck>, CountSq<kAck>},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "--count") == 0) {
    long count = atol(argv[3]);
    for (const Entry& e : kWorkloads) {
      if (strcmp(argv[2], e.name) != 0 && strcmp(argv[2], e.alias) != 0) continue;
      e.count(count);
      return 0;
    }
    fprintf(stderr, "unknown workload %s\n", argv[2]);
    return 2;
  }
  for (const Entry& e : kWorkloads) benchmark::RegisterBenchmark(e.name, e.run);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
