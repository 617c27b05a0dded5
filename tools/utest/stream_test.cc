// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Randomized stream tests: a go-back-N requester model sends long request
// streams (SEND, WRITE, READ, ATOMIC) through a channel that loses,
// duplicates and reorders packets, into the core, in RX batches.  Every
// response the core produces is checked against invariants:
//   - ACK PSNs never move backwards;
//   - at most one NAK (sequence or RNR) per latch episode, and a sequence
//     NAK carries the expected PSN (the first missing one);
//   - every AckReq'd request (and every duplicate SEND/WRITE) is covered
//     by a response with its PSN or later before its batch ends;
//   - the MSN goes up by one per completed new message, and never down;
//   - no ACK overtakes a READ response that is still pending.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include <sroce/core_abi.h>
#include <sroce/psn.h>

namespace {

constexpr uint32_t kPmtu = 256;
constexpr uint32_t kRdAtomic = 8;  // the responder's max_dest_rd_atomic

struct Pkt {
  sroce_resp_req req;
  uint32_t read_pkts;  // READ: response packets it reserves
};

struct Config {
  double drop;      // request packets lost
  double dup;       // request packets duplicated
  double reorder;   // adjacent swap
  double resp_drop; // responses lost on the way back
  double rnr;       // a WQE-consuming request finds no receive WQE
  bool lazy_pull;   // TX drains only at batch end (exercises the queue)
  uint32_t coalesce_max;
  uint32_t span_max = 0;  // 0: no ack_span_max limit
};

class Stream {
 public:
  Stream(uint32_t seed, const Config& cfg) : rng_(seed), cfg_(cfg) {
    sroce_resp_params p{};
    p.epsn = initial_psn_ = rng_() & SROCE_PSN_MASK;
    p.pmtu = kPmtu;
    p.ack_coalesce_max = cfg.coalesce_max;
    p.ack_span_max = cfg.span_max;
    p.min_rnr_timer = 1;
    sroce_resp_init(&qp_, &p, res_, kRdAtomic);
    sroce_resp_set_credits(&qp_, 1000);
    next_psn_ = acked_ = cur_ = initial_psn_;
  }

  void Run(int rounds) {
    for (int r = 0; r < rounds && !::testing::Test::HasFailure(); r++) {
      if (sroce_psn_diff(next_psn_, acked_) < 24) NewMessage();
      SendSome();
      Deliver();
      if (++idle_ > 6) {  // requester timeout: go back to the oldest unacked
        cur_ = acked_;
        idle_ = 0;
      }
    }
    // Drain: everything still sent is eventually answered.
    for (int r = 0; r < 200 && !::testing::Test::HasFailure(); r++) {
      cur_ = acked_;
      SendSome();
      Deliver();
    }
    EXPECT_GT(messages_, 10u);
    const sroce_resp_stats* st = sroce_resp_get_stats(&qp_);
    EXPECT_EQ(sroce_resp_expected_psn(&qp_), next_psn_) << "stream did not complete";
    if (::testing::Test::HasFailure())
      for (unsigned i = 0; i < SROCE_DROP_REASON_COUNT; i++)
        if (st->drops[i]) printf("drop %s: %llu\n", sroce_drop_reason_name(i), (unsigned long long)st->drops[i]);
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  uint32_t Rand(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

  void Add(uint8_t opcode, uint32_t len, uint32_t dma, bool ackreq, uint32_t npkts = 1) {
    Pkt p{};
    p.req.opcode = opcode;
    p.req.psn = next_psn_;
    p.req.payload_len = len;
    p.req.dma_len = dma;
    p.req.va = 0x10000 + (uint64_t)next_psn_ * 8;
    p.req.rkey = 0x77;
    p.req.ackreq = ackreq;
    p.read_pkts = npkts;
    log_[next_psn_] = p;
    for (uint32_t i = 1; i < npkts; i++) log_.erase(sroce_psn_add(next_psn_, i));
    next_psn_ = sroce_psn_add(next_psn_, npkts);
  }

  // READ/ATOMIC requests sent and not yet acknowledged.
  uint32_t RdAtomicOutstanding() const {
    uint32_t n = 0;
    for (uint32_t psn = acked_; psn != next_psn_; psn = sroce_psn_add(psn, 1)) {
      auto it = log_.find(psn);
      if (it == log_.end()) continue;
      uint8_t op = it->second.req.opcode;
      n += op == SROCE_OP_READ_REQUEST || op == SROCE_OP_CMP_SWAP || op == SROCE_OP_FETCH_ADD;
    }
    return n;
  }

  void NewMessage() {
    messages_++;
    // Like a real requester, never more READ/ATOMICs outstanding than the
    // responder has resources for (its answer would be C9-121).
    uint32_t kinds = RdAtomicOutstanding() < kRdAtomic ? 4 : 2;
    switch (Rand(kinds)) {
      case 0:
      case 1: {  // SEND or WRITE of 1..3 packets, AckReq on the last
        bool send = Rand(2);
        uint32_t n = 1 + Rand(3);
        uint32_t last_len = 1 + Rand(kPmtu);
        uint32_t total = (n - 1) * kPmtu + last_len;
        for (uint32_t i = 0; i < n; i++) {
          bool first = i == 0, last = i == n - 1;
          uint8_t op;
          if (send)
            op = n == 1 ? SROCE_OP_SEND_ONLY
                        : first ? SROCE_OP_SEND_FIRST : last ? SROCE_OP_SEND_LAST : SROCE_OP_SEND_MIDDLE;
          else
            op = n == 1 ? SROCE_OP_WRITE_ONLY
                        : first ? SROCE_OP_WRITE_FIRST : last ? SROCE_OP_WRITE_LAST : SROCE_OP_WRITE_MIDDLE;
          Add(op, last ? last_len : kPmtu, first && !send ? total : 0, last || Chance(0.1));
        }
        break;
      }
      case 2: {
        uint32_t len = Rand(3 * kPmtu + 1);
        Add(SROCE_OP_READ_REQUEST, 0, len, true, len == 0 ? 1 : (len - 1) / kPmtu + 1);
        break;
      }
      default:
        Add(Rand(2) ? SROCE_OP_CMP_SWAP : SROCE_OP_FETCH_ADD, 0, 0, true);
    }
  }

  // Request packets from the send cursor, into the channel.
  void SendSome() {
    for (int i = 0; i < 8 && cur_ != next_psn_; i++) {
      auto it = log_.find(cur_);
      if (it == log_.end()) {  // inside a READ's range: resend it from here
        uint32_t start = cur_;
        while (!log_.count(start)) start = sroce_psn_add(start, SROCE_PSN_MASK);
        Pkt p = log_[start];
        uint32_t off = sroce_psn_diff(cur_, start);
        p.req.psn = cur_;
        p.req.va += (uint64_t)off * kPmtu;
        p.req.dma_len -= off * kPmtu;
        Send(p);
        cur_ = sroce_psn_add(start, p.read_pkts);
        continue;
      }
      Send(it->second);
      cur_ = sroce_psn_add(cur_, it->second.read_pkts);
    }
  }

  void Send(const Pkt& p) {
    if (Chance(cfg_.drop)) return;
    wire_.push_back(p);
    if (Chance(cfg_.dup)) wire_.push_back(p);
    if (wire_.size() >= 2 && Chance(cfg_.reorder)) std::swap(wire_[wire_.size() - 1], wire_[wire_.size() - 2]);
  }

  // One RX batch, like the driver's shim.
  void Deliver() {
    if (wire_.empty()) return;
    sroce_resp_batch_begin(&qp_);
    owed_.clear();
    size_t n = 1 + Rand(16);
    while (n-- && !wire_.empty()) {
      Pkt p = wire_.front();
      wire_.pop_front();
      RxOne(p);
      if (!cfg_.lazy_pull) PullAll();
    }
    sroce_resp_batch_end(&qp_);
    PullAll();
    // C9-116 / C9-105: everything owed in this batch is covered now.
    for (uint32_t psn : owed_) {
      bool covered = false;
      for (size_t i = batch_resp_start_; i < sent_.size(); i++)
        if (sroce_psn_diff(sent_[i].psn, psn) >= 0 && sent_[i].kind != SROCE_RESP_QP_ERROR) covered = true;
      EXPECT_TRUE(covered) << "AckReq'd/duplicate PSN " << psn << " not covered by batch end";
    }
    batch_resp_start_ = sent_.size();
  }

  void RxOne(const Pkt& p) {
    sroce_resp_req req = p.req;
    req.verdict = sroce_resp_classify(&qp_, req.psn);
    uint32_t epsn = sroce_resp_expected_psn(&qp_);
    sroce_resp_ret r = sroce_resp_rx(&qp_, &req);
    bool is_dup = req.verdict == SROCE_PSN_DUPLICATE;
    bool is_sw = req.opcode <= SROCE_OP_WRITE_ONLY_IMM;
    if (is_dup) {
      EXPECT_EQ(sroce_resp_expected_psn(&qp_), epsn) << "C9-103";
      if (is_sw) owed_.push_back(req.psn);  // C9-105: answered by batch end
    }
    if (req.verdict == SROCE_PSN_AHEAD) {
      EXPECT_NE(r.action, SROCE_ACT_EXECUTE) << "C9-114: ahead executed";
      if (r.action == SROCE_ACT_RESPOND) {
        nak_psns_.push_back(epsn);  // C9-111
        NakDecided();
      }
    }
    if (r.action != SROCE_ACT_EXECUTE) return;
    EXPECT_EQ(req.verdict, SROCE_PSN_NEW);
    nak_armed_ = true;  // a new request was accepted: a new NAK episode may start
    sroce_exec ex{};
    bool needs_wqe = req.opcode == SROCE_OP_SEND_FIRST || req.opcode == SROCE_OP_SEND_ONLY ||
                     req.opcode == SROCE_OP_SEND_ONLY_IMM;
    ex.status = needs_wqe && Chance(cfg_.rnr) ? SROCE_EXEC_RNR : SROCE_EXEC_OK;
    ex.atomic_orig = req.psn * 3ull;
    r = sroce_resp_executed(&qp_, &ex);
    if (ex.status != SROCE_EXEC_OK) {
      NakDecided();
      return;
    }
    bool last = req.opcode == SROCE_OP_SEND_LAST || req.opcode == SROCE_OP_SEND_ONLY ||
                req.opcode == SROCE_OP_WRITE_LAST || req.opcode == SROCE_OP_WRITE_ONLY ||
                req.opcode >= SROCE_OP_READ_REQUEST;
    if (last) msn_ = sroce_psn_add(msn_, 1);
    EXPECT_EQ(sroce_resp_msn(&qp_), msn_) << "C9-149: one MSN step per new message";
    if (req.opcode == SROCE_OP_READ_REQUEST) {
      pending_reads_.push_back({req.psn, sroce_psn_add(req.psn, p.read_pkts - 1)});
    } else if (req.ackreq && is_sw) {
      owed_.push_back(req.psn);
    }
  }

  // Checked when the NAK is decided (the pull may come later).
  void NakDecided() {
    EXPECT_TRUE(nak_armed_) << "C9-114: second NAK in one episode";
    nak_armed_ = false;
  }

  void PullAll() {
    sroce_resp_desc d;
    while (sroce_resp_pull(&qp_, &d)) {
      Check(d);
      sent_.push_back(d);
      if (!Chance(cfg_.resp_drop)) ToRequester(d);
    }
  }

  void Check(const sroce_resp_desc& d) {
    if (d.has_aeth) {
      EXPECT_GE(sroce_psn_diff(d.msn, last_msn_), 0) << "MSN moved backwards";
      last_msn_ = d.msn;
    }
    switch (d.kind) {
      case SROCE_RESP_ACK:
        if (last_ack_psn_valid_) {
          EXPECT_GE(sroce_psn_diff(d.psn, last_ack_psn_), 0) << "ACK PSN moved backwards";
        }
        last_ack_psn_ = d.psn;
        last_ack_psn_valid_ = true;
        for (auto& rd : pending_reads_)
          EXPECT_LT(sroce_psn_diff(d.psn, rd.first), 0) << "C9-101: ACK overtook a READ response";
        break;
      case SROCE_RESP_NAK:
      case SROCE_RESP_RNR_NAK:
        if (d.kind == SROCE_RESP_NAK && d.syndrome == 0x60) {
          ASSERT_FALSE(nak_psns_.empty());
          EXPECT_EQ(d.psn, nak_psns_.front()) << "C9-111: NAK PSN is the first missing";
          nak_psns_.pop_front();
        }
        break;
      case SROCE_RESP_READ_LAST:
      case SROCE_RESP_READ_ONLY:
        if (!pending_reads_.empty() && pending_reads_.front().second == d.psn) pending_reads_.pop_front();
        break;
      default:
        break;
    }
  }

  // The requester: ACKs and READ/ATOMIC responses move the acked point;
  // NAKs rewind the send cursor (go-back-N).
  void ToRequester(const sroce_resp_desc& d) {
    uint32_t upto = acked_;
    switch (d.kind) {
      case SROCE_RESP_ACK:
      case SROCE_RESP_ATOMIC_ACK:
      case SROCE_RESP_READ_LAST:
      case SROCE_RESP_READ_ONLY:
        upto = sroce_psn_add(d.psn, 1);
        break;
      case SROCE_RESP_READ_FIRST:
        upto = d.psn;
        break;
      case SROCE_RESP_NAK:
      case SROCE_RESP_RNR_NAK:
        upto = d.psn;
        cur_ = d.psn;
        break;
      default:
        break;
    }
    if (sroce_psn_diff(upto, acked_) > 0 && sroce_psn_diff(upto, next_psn_) <= 0) {
      acked_ = upto;
      idle_ = 0;
    }
    if (sroce_psn_diff(cur_, acked_) < 0) cur_ = acked_;
  }

  std::mt19937 rng_;
  Config cfg_;
  sroce_resp_qp qp_{};
  sroce_rd_res res_[kRdAtomic]{};
  std::map<uint32_t, Pkt> log_;
  std::deque<Pkt> wire_;
  std::vector<sroce_resp_desc> sent_;
  std::vector<uint32_t> owed_;
  std::deque<std::pair<uint32_t, uint32_t>> pending_reads_;
  std::deque<uint32_t> nak_psns_;
  size_t batch_resp_start_ = 0;
  uint32_t initial_psn_ = 0, next_psn_ = 0, acked_ = 0, cur_ = 0;
  uint32_t msn_ = 0, last_msn_ = 0, last_ack_psn_ = 0, messages_ = 0;
  int idle_ = 0;
  bool last_ack_psn_valid_ = false;
  bool nak_armed_ = true;
};

struct StreamParam {
  const char* name;
  Config cfg;
};

void PrintTo(const StreamParam& p, std::ostream* os) { *os << p.name; }

class StreamTest : public ::testing::TestWithParam<StreamParam> {};

TEST_P(StreamTest, InvariantsHold) {
  for (uint32_t seed = 1; seed <= 40 && !HasFailure(); seed++) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    Stream s(seed * 7919, GetParam().cfg);
    s.Run(400);
  }
}

const StreamParam kStreams[] = {
    {"clean", {0, 0, 0, 0, 0, false, 16}},
    {"clean_lazy_pull", {0, 0, 0, 0, 0, true, 16}},
    {"loss", {0.05, 0, 0, 0, 0, false, 16}},
    {"loss_dup_reorder", {0.05, 0.05, 0.1, 0, 0, false, 16}},
    {"heavy_everything_lazy", {0.15, 0.1, 0.2, 0.1, 0.05, true, 4}},
    {"rnr", {0, 0, 0, 0, 0.2, false, 16}},
    {"stock_policy", {0.05, 0.05, 0.05, 0.05, 0.02, false, 1}},
    {"loss_dup_reorder_span8", {0.05, 0.05, 0.1, 0, 0, false, 16, 8}},
    {"heavy_everything_span3", {0.15, 0.1, 0.2, 0.1, 0.05, true, 16, 3}},
};

INSTANTIATE_TEST_SUITE_P(Random, StreamTest, ::testing::ValuesIn(kStreams),
                         [](const ::testing::TestParamInfo<StreamParam>& i) { return i.param.name; });

}  // namespace
