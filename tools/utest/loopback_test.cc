// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Loopback stream test: the requester core sends random work through a
// channel that loses, duplicates and reorders packets, into the responder
// core (executing against a simulated remote memory and receive queue),
// whose responses come back through another such channel into the
// completer core.  With many seeds it checks that:
//   - every WQE completes exactly once, in order, successfully, and every
//     byte arrived (SEND payloads in order, WRITE regions, READ buffers,
//     ATOMIC results: each FETCH_ADD executed exactly once);
//   - go-back-N holds: the acknowledged PSN never moves backwards, the
//     responder sends at most one sequence NAK per episode and it names
//     its expected PSN, and after the completer accepts a sequence NAK the
//     next request packet is a retransmission starting at its PSN (or at
//     the first PSN not acknowledged, if responses in between moved it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include <sroce/core_abi.h>
#include <sroce/psn.h>
#include <sroce/sq_abi.h>

namespace {

constexpr uint32_t kPmtu = 256;
constexpr uint32_t kSlots = 64;
constexpr uint32_t kRemoteSize = 1 << 20;
constexpr uint64_t kReadBase = 0;              // read-only pattern region
constexpr uint64_t kWriteBase = 256 * 1024;    // each WRITE gets its own region
constexpr uint64_t kCounterVa = kRemoteSize - 8;  // FETCH_ADD counter
constexpr uint64_t kSwapVa = kRemoteSize - 16;    // CMP_SWAP word

struct Lossy {
  double drop = 0, dup = 0, reorder = 0;
};

struct LoopConfig {
  Lossy fwd, back;
  uint32_t ackreq_every = 16;
  uint32_t coalesce = 16;
  uint32_t window = 64;
  uint32_t rd_atomic = 4;
  uint32_t recv_rate = 100;  // percent of rounds that post a receive (when low)
  uint32_t wqes = 300;
};

struct Packet {
  sroce_req_pkt req;           // forward direction
  sroce_resp_desc resp;        // backward direction
  std::vector<uint8_t> data;
};

// LOOP_TRACE=1 prints every packet, decision and loss.
bool Tracing() {
  static const bool on = getenv("LOOP_TRACE") != nullptr;
  return on;
}

template <typename T>
class Channel {
 public:
  Channel(std::mt19937* rng, Lossy l) : rng_(rng), l_(l) {}
  void Send(const T& p) {
    if (Chance(l_.drop)) {
      if (Tracing()) printf("  channel lost a packet\n");
      return;
    }
    q_.push_back(p);
    if (Chance(l_.dup)) q_.push_back(p);
    if (q_.size() >= 2 && Chance(l_.reorder)) std::swap(q_[q_.size() - 1], q_[q_.size() - 2]);
  }
  bool Take(T* p) {
    if (q_.empty()) return false;
    *p = q_.front();
    q_.pop_front();
    return true;
  }
  size_t Size() const { return q_.size(); }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(*rng_) < p; }
  std::mt19937* rng_;
  Lossy l_;
  std::deque<T> q_;
};

struct Work {
  sroce_sq_wqe w;
  std::vector<uint8_t> local;  // SEND/WRITE source, READ destination
  uint64_t result = 0;         // ATOMIC: the original value returned
  bool completed = false;
};

class Loopback {
 public:
  Loopback(uint32_t seed, const LoopConfig& cfg)
      : rng_(seed), cfg_(cfg), fwd_(&rng_, cfg.fwd), back_(&rng_, cfg.back),
        remote_(kRemoteSize) {
    for (uint32_t i = 0; i < kWriteBase; i++) remote_[i] = static_cast<uint8_t>(i * 7 + 3);
    uint32_t psn = rng_() & SROCE_PSN_MASK;
    sroce_sq_params sp{};
    sp.psn = psn;
    sp.pmtu = kPmtu;
    sp.window = cfg.window;
    sp.ackreq_every = cfg.ackreq_every;
    sp.max_rd_atomic = static_cast<uint8_t>(cfg.rd_atomic);
    sp.timeout = 14;
    sp.retry_cnt = 7;
    sp.rnr_retry = 7;
    sroce_sq_init(&sq_, &sp, ring_, kSlots);
    sroce_resp_params rp{};
    rp.epsn = psn;
    rp.pmtu = kPmtu;
    rp.ack_coalesce_max = cfg.coalesce;
    rp.min_rnr_timer = 1;
    sroce_resp_init(&rq_, &rp, res_, cfg.rd_atomic);
    acked_ = sroce_sq_acked_psn(&sq_);
  }

  void Run() {
    uint32_t posted = 0;
    for (round_ = 0; round_ < 200000 && !::testing::Test::HasFailure(); round_++) {
      // Post new work while there is room.
      while (posted < cfg_.wqes && sroce_sq_room(&sq_) && Rand(4) != 0) {
        Post();
        posted++;
      }
      ReceiverPosts();
      Requester();
      Responder();
      Completer();
      Timers();
      if (posted == cfg_.wqes && done_ == work_.size()) break;
    }
    ASSERT_EQ(done_, work_.size()) << "stream did not complete; round " << round_;
    CheckData();
    const sroce_sq_stats* st = sroce_sq_get_stats(&sq_);
    EXPECT_EQ(st->completions[SROCE_WC_SUCCESS], work_.size());
    EXPECT_EQ(st->packets - st->retransmits, new_packets_);
  }

  const sroce_sq_stats* Stats() const { return sroce_sq_get_stats(&sq_); }

 private:
  uint32_t Rand(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

  void Post() {
    Work k{};
    sroce_sq_wqe& w = k.w;
    uint32_t kind = Rand(10);
    uint32_t len = Rand(5) == 0 ? 0 : 1 + Rand(4 * kPmtu);
    w.flags = Rand(3) == 0 ? SROCE_WF_SIGNALED : 0;
    if (kind < 3) {
      w.op = Rand(2) ? SROCE_WR_SEND : SROCE_WR_SEND_IMM;
    } else if (kind < 6) {
      w.op = Rand(2) ? SROCE_WR_WRITE : SROCE_WR_WRITE_IMM;
      w.remote_va = kWriteBase + static_cast<uint64_t>(work_.size()) * 1100;
    } else if (kind < 8) {
      w.op = SROCE_WR_READ;
      w.remote_va = Rand(kWriteBase - 4 * kPmtu - 1);
    } else if (kind == 8) {
      w.op = SROCE_WR_FETCH_ADD;
      w.remote_va = kCounterVa;
      w.swap_add = 1;
      len = 8;
    } else {
      w.op = SROCE_WR_CMP_SWAP;
      w.remote_va = kSwapVa;
      w.compare = swaps_;
      w.swap_add = swaps_ + 1;
      swaps_++;
      len = 8;
    }
    if (Rand(8) == 0) w.flags |= SROCE_WF_FENCE;
    w.length = len;
    w.rkey = 0x1234;
    w.imm = static_cast<uint32_t>(work_.size());
    k.local.resize(len);
    if (w.op != SROCE_WR_READ)
      for (auto& b : k.local) b = static_cast<uint8_t>(rng_());
    uint32_t pos = sroce_sq_producer(&sq_);
    ring_[pos % kSlots] = w;
    ASSERT_EQ(sroce_req_post(&sq_, 1), 1u);
    ASSERT_EQ(pos, work_.size());
    work_.push_back(k);
  }

  void ReceiverPosts() {
    // A receiver that keeps a few receives posted, slowly when recv_rate is low.
    if (recvs_ < 8 && Rand(100) < cfg_.recv_rate) {
      recvs_++;
      sroce_resp_set_credits(&rq_, recvs_);
      PullResponses();
    }
  }

  void Requester() {
    for (int i = 0; i < 32; i++) {
      sroce_req_pkt pkt;
      sroce_sq_ret r = sroce_req_next(&sq_, &pkt);
      if (r.action != SROCE_SQ_SEND) break;
      ApplyTimer(r);
      if (expect_retry_) {
        EXPECT_TRUE(pkt.flags & SROCE_PF_RETRY) << "retransmission expected after NAK";
        // At the NAK's PSN, or past it if responses acknowledged more since.
        uint32_t from = sroce_psn_add(sroce_sq_acked_psn(&sq_), 1);
        EXPECT_GE(sroce_psn_diff(from, expect_psn_), 0);
        EXPECT_EQ(pkt.psn, from) << "retransmission must start at the NAK's PSN, nak "
                                 << expect_psn_;
        expect_retry_ = false;
      }
      if (!(pkt.flags & SROCE_PF_RETRY)) {
        EXPECT_EQ(pkt.psn, new_psn_ ? next_new_ : pkt.psn) << "new PSNs are consecutive";
        new_packets_++;
      }
      if (Tracing())
        printf("r%u send psn %u op %#x wqe %u len %u flags %#x rule %s\n", round_, pkt.psn,
               pkt.opcode, pkt.wqe, pkt.length, pkt.flags, sroce_sq_rule_name(pkt.rule));
      Packet p{};
      p.req = pkt;
      const Work& k = work_[pkt.wqe];
      if (pkt.length) {
        EXPECT_LE(pkt.offset + pkt.length, k.local.size());
        p.data.assign(k.local.begin() + pkt.offset, k.local.begin() + pkt.offset + pkt.length);
      }
      // A READ reserves one PSN per response packet (9.7.1).
      uint32_t take = pkt.opcode == SROCE_OP_READ_REQUEST
                          ? (pkt.dma_len ? (pkt.dma_len + kPmtu - 1) / kPmtu : 1)
                          : 1;
      uint32_t after = sroce_psn_add(pkt.psn, take);
      if (!new_psn_ || sroce_psn_diff(after, next_new_) > 0) next_new_ = after;
      new_psn_ = true;
      fwd_.Send(p);
    }
  }

  void Responder() {
    sroce_resp_batch_begin(&rq_);
    Packet p;
    size_t n = fwd_.Size();
    for (size_t i = 0; i < n && fwd_.Take(&p); i++) Deliver(p);
    sroce_resp_batch_end(&rq_);
    PullResponses();
  }

  void Deliver(const Packet& p) {
    sroce_req req{};
    req.psn = p.req.psn;
    req.opcode = p.req.opcode;
    req.ackreq = (p.req.flags & SROCE_PF_ACKREQ) ? 1 : 0;
    req.payload_len = p.req.length;
    req.dma_len = p.req.dma_len;
    req.rkey = p.req.rkey;
    req.va = p.req.va;
    req.verdict = sroce_resp_classify(&rq_, req.psn);
    sroce_resp_ret r = sroce_resp_rx(&rq_, &req);
    if (Tracing())
      printf("  responder psn %u op %#x verdict %u -> %s %s %s\n", req.psn, req.opcode, req.verdict,
             sroce_action_name(r.action), sroce_drop_reason_name(r.reason), sroce_rule_name(r.rule));
    if (r.action == SROCE_ACT_EXECUTE) {
      sroce_exec ex{};
      ex.status = Execute(p, r.exec, &ex.atomic_orig);
      sroce_resp_executed(&rq_, &ex);
    }
    PullResponses();
  }

  uint8_t Execute(const Packet& p, uint8_t xf, uint64_t* orig) {
    if (xf & SROCE_XF_WQE) {
      if (!recvs_) return SROCE_EXEC_RNR;
      recvs_--;
      sroce_resp_set_credits(&rq_, recvs_);
    }
    if (xf & SROCE_XF_SEND) {
      if (xf & SROCE_XF_FIRST) msg_.clear();
      msg_.insert(msg_.end(), p.data.begin(), p.data.end());
      if (xf & SROCE_XF_LAST) received_.push_back(msg_);
    } else if (xf & SROCE_XF_WRITE) {
      if (xf & SROCE_XF_FIRST) write_va_ = p.req.va;
      EXPECT_LE(write_va_ + p.data.size(), kRemoteSize);
      if (!p.data.empty()) memcpy(&remote_[write_va_], p.data.data(), p.data.size());
      write_va_ += p.data.size();
      if ((xf & SROCE_XF_LAST) && (xf & SROCE_XF_WQE)) imms_++;
    } else if (xf & SROCE_XF_ATOMIC) {
      uint64_t v;
      memcpy(&v, &remote_[p.req.va], 8);
      *orig = v;
      if (p.req.opcode == SROCE_OP_FETCH_ADD) v += p.req.swap_add;
      else if (v == p.req.compare) v = p.req.swap_add;
      memcpy(&remote_[p.req.va], &v, 8);
    }
    return SROCE_EXEC_OK;
  }

  void PullResponses() {
    sroce_resp_desc d;
    while (sroce_resp_pull(&rq_, &d)) {
      ASSERT_NE(d.kind, SROCE_RESP_QP_ERROR) << "responder moved to error, rule "
                                             << sroce_rule_name(d.rule);
      if (d.kind == SROCE_RESP_NAK && (d.syndrome & 0x1f) == SROCE_NAK_PSN_SEQ_ERR) {
        EXPECT_EQ(d.psn, sroce_resp_expected_psn(&rq_)) << "a NAK names the first missing PSN";
        // C9-114: one NAK per episode: a second one needs the PSN to have moved.
        EXPECT_TRUE(!nak_sent_ || d.psn != last_nak_psn_) << "second NAK in one episode";
        nak_sent_ = true;
        last_nak_psn_ = d.psn;
      }
      Packet p{};
      p.resp = d;
      if (d.kind >= SROCE_RESP_READ_FIRST && d.kind <= SROCE_RESP_READ_ONLY && d.length) {
        EXPECT_LE(d.va + d.length, kWriteBase);
        p.data.assign(remote_.begin() + d.va, remote_.begin() + d.va + d.length);
      }
      back_.Send(p);
    }
  }

  void Completer() {
    Packet p;
    size_t n = back_.Size();
    for (size_t i = 0; i < n && back_.Take(&p); i++) {
      sroce_comp_pkt c{};
      c.opcode = p.resp.opcode;
      c.psn = p.resp.psn;
      c.msn = p.resp.msn;
      c.syndrome = p.resp.has_aeth ? p.resp.syndrome : 0;
      c.payload_len = p.resp.length;
      c.atomic_orig = p.resp.atomic_orig;
      sroce_comp_place pl;
      sroce_sq_ret r = sroce_comp_rx(&sq_, &c, &pl);
      if (Tracing())
        printf("r%u resp psn %u op %#x syn %#x msn %u -> %d %s\n", round_, c.psn, c.opcode,
               c.syndrome, c.msn, r.action, sroce_sq_rule_name(r.rule));
      if (r.action == SROCE_SQ_PLACE) {
        Work& k = work_[pl.wqe];
        if (pl.atomic) {
          k.result = pl.atomic_orig;
        } else {
          EXPECT_LE(pl.offset + pl.length, k.local.size());
          EXPECT_EQ(pl.length, p.data.size());
          if (pl.length) memcpy(&k.local[pl.offset], p.data.data(), pl.length);
        }
        r = sroce_comp_placed(&sq_, SROCE_WC_SUCCESS);
      }
      if (r.action == SROCE_SQ_ACCEPT && r.rule == SROCE_SQR_SEQ_NAK) {
        expect_retry_ = true;
        expect_psn_ = c.psn;
      }
      ApplyTimer(r);
      uint32_t acked = sroce_sq_acked_psn(&sq_);
      EXPECT_GE(sroce_psn_diff(acked, acked_), 0) << "acknowledged PSN moved backwards";
      acked_ = acked;
      Retire();
    }
  }

  void Retire() {
    sroce_sq_cqe cqe;
    while (sroce_comp_pull(&sq_, &cqe)) {
      ASSERT_EQ(cqe.wqe, done_) << "completions in order";
      Work& k = work_[cqe.wqe];
      EXPECT_FALSE(k.completed) << "completed twice";
      EXPECT_EQ(cqe.status, SROCE_WC_SUCCESS) << sroce_wc_status_name(cqe.status) << " rule "
                                              << sroce_sq_rule_name(cqe.rule);
      EXPECT_EQ(cqe.signaled, (k.w.flags & SROCE_WF_SIGNALED) ? 1 : 0);
      EXPECT_EQ(cqe.byte_len, k.w.length);
      k.completed = true;
      done_++;
    }
  }

  void ApplyTimer(const sroce_sq_ret& r) {
    switch (r.timer) {
      case SROCE_TMR_ARM:
        EXPECT_FALSE(timer_on_) << "armed while running";
        timer_on_ = true;
        deadline_ = round_ + kTimeout;
        break;
      case SROCE_TMR_RESTART:
        EXPECT_TRUE(timer_on_) << "restart of a stopped timer";
        deadline_ = round_ + kTimeout;
        break;
      case SROCE_TMR_CANCEL:
        timer_on_ = false;
        break;
      case SROCE_TMR_RNR:
        timer_on_ = false;
        rnr_on_ = true;
        rnr_deadline_ = round_ + 3;
        break;
      default:
        break;
    }
  }

  void Timers() {
    if (rnr_on_ && round_ >= rnr_deadline_) {
      rnr_on_ = false;
      ApplyTimer(sroce_comp_rnr_expired(&sq_));
    }
    if (timer_on_ && round_ >= deadline_) {
      timer_on_ = false;
      if (Tracing()) {
        sroce_req_pkt pk;
        sroce_sq_ret b = sroce_req_next(&sq_, &pk);
        if (b.action == SROCE_SQ_SEND) sroce_req_unsend(&sq_);
        printf("timeout round %u acked %u next %u resp epsn %u req %d/%s done %u/%zu recvs %u\n",
               round_, sroce_sq_acked_psn(&sq_), sroce_sq_next_psn(&sq_),
               sroce_resp_expected_psn(&rq_), b.action, sroce_block_reason_name(b.reason), done_,
               work_.size(), recvs_);
        const sroce_resp_stats* rs = sroce_resp_get_stats(&rq_);
        for (unsigned i = 0; i < SROCE_DROP_REASON_COUNT; i++)
          if (rs->drops[i]) printf("  responder drop %s: %llu\n", sroce_drop_reason_name(i),
                                   static_cast<unsigned long long>(rs->drops[i]));
      }
      sroce_sq_ret r = sroce_comp_timeout(&sq_);
      ApplyTimer(r);
      Retire();
    }
  }

  void CheckData() {
    size_t sends = 0, fetch_adds = 0;
    std::vector<uint64_t> fa_results;
    for (const Work& k : work_) {
      switch (k.w.op) {
        case SROCE_WR_SEND:
        case SROCE_WR_SEND_IMM:
          ASSERT_LT(sends, received_.size());
          EXPECT_EQ(received_[sends], k.local) << "SEND payload " << sends;
          sends++;
          break;
        case SROCE_WR_WRITE:
        case SROCE_WR_WRITE_IMM:
          EXPECT_EQ(0, k.local.empty() ? 0
                                       : memcmp(&remote_[k.w.remote_va], k.local.data(),
                                                k.local.size()))
              << "WRITE region";
          break;
        case SROCE_WR_READ:
          for (size_t i = 0; i < k.local.size(); i++)
            ASSERT_EQ(k.local[i], static_cast<uint8_t>((k.w.remote_va + i) * 7 + 3))
                << "READ byte " << i;
          break;
        case SROCE_WR_FETCH_ADD:
          fa_results.push_back(k.result);
          fetch_adds++;
          break;
        case SROCE_WR_CMP_SWAP:
          EXPECT_EQ(k.result, k.w.compare) << "CMP_SWAP executed once, in order";
          break;
      }
    }
    EXPECT_EQ(sends, received_.size()) << "extra SEND messages";
    for (size_t i = 0; i < fa_results.size(); i++)
      EXPECT_EQ(fa_results[i], i) << "FETCH_ADD executed exactly once each";
    uint64_t counter;
    memcpy(&counter, &remote_[kCounterVa], 8);
    EXPECT_EQ(counter, fetch_adds);
  }

  static constexpr uint32_t kTimeout = 40;  // rounds

  std::mt19937 rng_;
  LoopConfig cfg_;
  Channel<Packet> fwd_, back_;
  std::vector<uint8_t> remote_;
  sroce_sq_qp sq_{};
  sroce_sq_wqe ring_[kSlots]{};
  sroce_resp_qp rq_{};
  sroce_rd_res res_[16]{};
  std::vector<Work> work_;
  std::vector<std::vector<uint8_t>> received_;
  std::vector<uint8_t> msg_;
  uint64_t write_va_ = 0;
  uint64_t swaps_ = 0;
  uint32_t imms_ = 0;
  uint32_t recvs_ = 0;
  uint32_t done_ = 0;
  uint32_t round_ = 0;
  uint32_t acked_ = 0;
  uint32_t next_new_ = 0;
  bool new_psn_ = false;
  uint64_t new_packets_ = 0;
  bool expect_retry_ = false;
  uint32_t expect_psn_ = 0;
  bool nak_sent_ = false;
  uint32_t last_nak_psn_ = 0;
  bool timer_on_ = false, rnr_on_ = false;
  uint32_t deadline_ = 0, rnr_deadline_ = 0;
};

struct Named {
  const char* name;
  LoopConfig cfg;
};

LoopConfig Make(double drop, double dup, double reorder, uint32_t recv_rate = 100) {
  LoopConfig c;
  c.fwd = Lossy{drop, dup, reorder};
  c.back = Lossy{drop, dup, reorder};
  c.recv_rate = recv_rate;
  return c;
}

const Named kConfigs[] = {
    {"clean", Make(0, 0, 0)},
    {"loss1", Make(0.01, 0, 0)},
    {"loss5", Make(0.05, 0, 0)},
    {"dup1", Make(0, 0.01, 0)},
    {"reorder", Make(0, 0, 0.05)},
    {"mixed", Make(0.03, 0.02, 0.03)},
    {"slow_receiver", Make(0.01, 0, 0, 10)},
    {"loss5_reorder10", Make(0.05, 0.02, 0.10)},
    {"forward_loss", [] { LoopConfig c = Make(0.05, 0, 0); c.back = Lossy{}; return c; }()},
    {"reverse_loss", [] { LoopConfig c = Make(0.05, 0.01, 0.02); c.fwd = Lossy{}; return c; }()},
    {"tight_window", [] { LoopConfig c = Make(0.02, 0.01, 0.02); c.window = 8; c.rd_atomic = 1;
                          c.ackreq_every = 0; return c; }()},
};

#ifndef LOOPBACK_SEEDS
#define LOOPBACK_SEEDS 40
#endif
constexpr uint32_t kSeeds = LOOPBACK_SEEDS;

class LoopbackTest : public ::testing::TestWithParam<::testing::tuple<int, uint32_t>> {};

TEST_P(LoopbackTest, EveryWqeOnceInOrderAndGoBackN) {
  const Named& n = kConfigs[::testing::get<0>(GetParam())];
  Loopback lb(::testing::get<1>(GetParam()), n.cfg);
  lb.Run();
  const sroce_sq_stats* st = lb.Stats();
  if (n.cfg.fwd.drop == 0 && n.cfg.back.drop == 0 && n.cfg.fwd.dup == 0 &&
      n.cfg.fwd.reorder == 0 && n.cfg.recv_rate == 100) {
    EXPECT_EQ(st->retransmits, 0u) << "clean link: no retransmission";
    EXPECT_EQ(st->timeouts, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, LoopbackTest,
    ::testing::Combine(::testing::Range(0, static_cast<int>(sizeof(kConfigs) / sizeof(kConfigs[0]))),
                       ::testing::Range(1u, kSeeds + 1)),
    [](const ::testing::TestParamInfo<LoopbackTest::ParamType>& i) {
      return std::string(kConfigs[::testing::get<0>(i.param)].name) + "_seed" +
             std::to_string(::testing::get<1>(i.param));
    });

}  // namespace
