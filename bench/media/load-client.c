// The benchmark's load client, in C so that on a small machine the client is not what limits a
// run (a Node client took 93 % of a core at 1,000 sessions, this one ≈ 60 %, nearly all of it
// the kernel's TCP work). Raw non-blocking TCP sockets in one epoll loop, a hand-made WebSocket
// upgrade, a pre-masked, marked 20 ms frame written to every socket every 20 ms (sessions spread
// over four 5 ms sub-ticks of an absolute timerfd), and a frame parser that reads only what it
// needs of the server's frames: which input frame each one echoes, and when it arrived.
//
// Web sessions write a 20 ms PCM16 frame at 16 kHz and count binary frames. Carrier sessions
// (Twilio media streams) write the opening and `media` frames they are given, and count text
// frames whose payload starts with {"event":"media".
//
// Counting (per session, only for the measuring window): input frame k of a session is written
// at t0 + (4k + group) × 5 ms, and its echo, output frame k, is due then. Every input frame is
// marked with k, so an output frame is known by its mark, not by its position in the stream: a
// frame the server never sent cannot make the next ones look late, and a backlog of warm-up
// frames delivered inside the window is not counted in it. Frames due in the window that arrive
// within DEADLINE_MS of their due time are received (late when more than LATE_MS after it); the
// rest are missing, per session due − received (never below 0).
//   web:     k mod 1024 as the frame's DC level (MARK_STEP × mark around 0, the 300 Hz tone on
//            top). Resampling keeps it: the mean of the middle half of an output frame (10 ms,
//            3 tone periods at any rate) gives the mark back to within 0.02 of a step.
//   carrier: k mod 2^15 in the payload's first three μ-law bytes, 5 bits each as codes
//            0xE0..0xFF (small values that decode and re-encode to themselves), patched into
//            the session's frame when it is queued.
//
// Driven by load-client.ts over stdin/stdout lines:
//   in:  "start <warmup_ms> <measure_ms> <n>" then n lines "<host> <port> <path> [<hello> <media> <mark_at>]"
//        (carrier frames in base64, already masked; mark_at = the payload's index in the media
//        frame's JSON), "hangup", "exit"
//   out: "ready", "measure-start", "measure-end", "done <ClientStats JSON>", "hung-up"
// BENCH_CLIENT_CPU=<k> pins the process to CPU k.
// BENCH_CLIENT_SPEECH=<file> (agent calls, `--agent`): web sessions play this raw PCM16 16 kHz
// caller audio (whole 20 ms frames, looped; each session starts at its own place in the loop)
// instead of the marked tone. Agent answers carry no marks: every output frame is counted as
// unidentified (= output frames received), and a gap over TURN_GAP_MS between two of a
// session's frames starts a new agent turn rather than counting as jitter.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { FRAME_MS = 20, GROUPS = 4, IN_RATE = 16000, PAYLOAD = IN_RATE * FRAME_MS * 2 / 1000, BINS = 10000 };
enum { FRAME_LEN = 8 + PAYLOAD, OPENING_AT_ONCE = 100, GRACE_MS = 300, PREFIX_LEN = 16, PEEK_LEN = 256 };
// A frame more than LATE_MS after its due time is late; one not there DEADLINE_MS after it is
// missing (the client listens GRACE_MS past the window, so every frame gets the same deadline).
enum { LATE_MS = 60, DEADLINE_MS = GRACE_MS };
enum { WEB_MARKS = 1024, MARK_STEP = 16, CARRIER_MARKS = 1 << 15, MULAW_MARK = 0xE0 };
// A carrier session's frames are patched in place: at most this many may wait unwritten.
enum { CARRIER_SLOTS = 64 };
static const char MEDIA_PREFIX[PREFIX_LEN + 1] = "{\"event\":\"media\"";
static const char PAYLOAD_KEY[] = "\"payload\":\"";
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
enum { CONNECTING, UPGRADING, OPEN, DEAD };
enum { SKIP, PCM, TEXT };  // what the server frame being parsed is to us

typedef struct {
  int fd, state, group, live;
  char host[64], path[512];
  int port;
  char head[512];
  int headLen;
  // the server frame being parsed
  uint8_t hdr[14];
  int hdrHave, kind;
  uint64_t size, remaining;   // its payload length, and the bytes of it still to come
  uint64_t midFrom, midTo;    // PCM: the middle half (bytes) whose samples are summed
  int64_t sum;
  uint8_t lo;                 // PCM: low byte of a sample split between two reads
  char peek[PEEK_LEN];        // TEXT: the start of the payload
  int peekNeed, peekHave;
  double lastArrival;         // ms, -1 until the first frame of the measuring window
  // what this socket writes
  uint64_t owed;              // frame bytes queued but not yet accepted by the kernel
  size_t off;                 // position of the next owed byte in `rep`
  int wantOut;                // EPOLLOUT armed
  uint8_t *rep;               // a cycle of frames (web: all 1024 marks; carrier: CARRIER_SLOTS copies)
  size_t repLen;
  int frameLen, markAt;       // markAt: carrier payload index of the mark, -1 for web
  uint8_t *hello;             // written once after the upgrade (carrier: `connected` + `start`)
  size_t helloLen;
  // counting
  long seq, queued;           // input frames scheduled so far, and written or queued
  long k0, k1;                // the input frames due in the measuring window: [k0, k1)
  long lastSeq;               // highest frame seen back
  uint32_t received, late, expired, unsent, unidentified;
} Conn;

static uint8_t webFrames[FRAME_LEN * WEB_MARKS];  // masked PCM16 frames, mark m in frame m
static const uint8_t CLOSE_FRAME[] = {0x88, 0x82, 1, 2, 3, 4, 0x03 ^ 1, 0xe8 ^ 2};  // close 1000, masked
static int8_t b64value[256];
static uint32_t hist[BINS + 1];     // |inter-arrival − 20 ms|, 0.1 ms bins
static uint32_t latency[BINS + 1];  // arrival − due of the window's frames, 0.1 ms bins
static uint8_t *speechFrames;  // masked caller-speech frames (BENCH_CLIENT_SPEECH), or NULL
static long speechCount;
enum { TURN_GAP_MS = 250 };
static int measuring;
static double t0;  // when input frame 0 of group 0 was due
static int ep;
static Conn *conns;
static int n;

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double cpuMs(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

/** The due time of a session's frame k: when the client's schedule writes input frame k. */
static double dueMs(const Conn *c, long k) { return t0 + (double)(k * GROUPS + c->group) * FRAME_MS / GROUPS; }

/** The first frame k whose due time is at or after t0 + ms. */
static long firstDueAt(const Conn *c, double ms) {
  long k = (long)ceil((ms * GROUPS / FRAME_MS - c->group) / GROUPS);
  return k < 0 ? 0 : k;
}

static void buildFrames(void) {
  const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
  for (int m = 0; m < WEB_MARKS; m++) {
    uint8_t *f = webFrames + (size_t)m * FRAME_LEN;
    f[0] = 0x82, f[1] = 0x80 | 126, f[2] = PAYLOAD >> 8, f[3] = PAYLOAD & 0xff;
    memcpy(f + 4, mask, 4);
    // Half a step off zero, so silence (mean 0) reads as no mark at all.
    int level = (m - WEB_MARKS / 2) * MARK_STEP + MARK_STEP / 2;
    for (int i = 0; i < PAYLOAD / 2; i++) {
      int16_t s = (int16_t)(lround(6000 * sin(2 * M_PI * 300 * i / IN_RATE)) + level);
      f[8 + 2 * i] = (uint8_t)(s & 0xff) ^ mask[(2 * i) & 3];
      f[8 + 2 * i + 1] = (uint8_t)((uint16_t)s >> 8) ^ mask[(2 * i + 1) & 3];
    }
  }
}

/** Caller speech for agent calls: the file's whole 20 ms frames, masked like the web frames. */
static void loadSpeech(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) perror(path), exit(1);
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  speechCount = bytes / PAYLOAD;
  if (speechCount < 1) fprintf(stderr, "%s: no whole frame\n", path), exit(1);
  speechFrames = malloc((size_t)speechCount * FRAME_LEN);
  const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
  for (long m = 0; m < speechCount; m++) {
    uint8_t *fr = speechFrames + (size_t)m * FRAME_LEN;
    fr[0] = 0x82, fr[1] = 0x80 | 126, fr[2] = PAYLOAD >> 8, fr[3] = PAYLOAD & 0xff;
    memcpy(fr + 4, mask, 4);
    if (fread(fr + 8, 1, PAYLOAD, f) != PAYLOAD) fprintf(stderr, "%s: short read\n", path), exit(1);
    for (int i = 0; i < PAYLOAD; i++) fr[8 + i] ^= mask[i & 3];
  }
  fclose(f);
}

/** Writes mark `seq` into a carrier `media` frame (masked, at payload index markAt). */
static void markCarrierFrame(uint8_t *f, int markAt, long seq) {
  int len7 = f[1] & 0x7f, hdr = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
  const uint8_t *mask = f + hdr;
  uint32_t bits = (uint32_t)(MULAW_MARK | (seq & 31)) << 16 | (uint32_t)(MULAW_MARK | (seq >> 5 & 31)) << 8 | (MULAW_MARK | (seq >> 10 & 31));
  for (int i = 0; i < 4; i++) {
    int p = markAt + i;
    f[hdr + 4 + p] = (uint8_t)B64[bits >> (18 - 6 * i) & 63] ^ mask[p & 3];
  }
}

static void arm(Conn *c, int out) {
  if (c->wantOut == out) return;
  struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
  c->wantOut = out;
}

static void die(Conn *c) {
  if (c->state == DEAD) return;
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  c->state = DEAD;
}

/** Writes what the connection owes; arms EPOLLOUT while the kernel cannot take it all. */
static void flush(Conn *c) {
  while (c->owed > 0) {
    size_t chunk = c->repLen - c->off;
    if (chunk > c->owed) chunk = c->owed;
    ssize_t w = send(c->fd, c->rep + c->off, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return arm(c, 1);
      return die(c);
    }
    c->owed -= w;
    c->off = (c->off + w) % c->repLen;
  }
  arm(c, 0);
}

/**
 * Queues input frame `seq`. Web frames are the cycle's frames in order, so none is ever
 * skipped; a carrier frame is marked in its slot, which must not still be waiting: when the
 * server has left CARRIER_SLOTS − 1 frames unread, the frame is not sent (returns 0).
 */
static int queueFrame(Conn *c, long seq) {
  if (c->markAt >= 0) {
    if (c->owed > (uint64_t)(CARRIER_SLOTS - 1) * c->frameLen) return 0;
    markCarrierFrame(c->rep + (size_t)(c->queued % CARRIER_SLOTS) * c->frameLen, c->markAt, seq);
  }
  c->queued++;
  c->owed += c->frameLen;
  if (!c->wantOut) flush(c);
  return 1;
}

/** An output frame arrived carrying `mark` (-1: none could be read). */
static void onFrame(Conn *c, double now, long mark) {
  if (!measuring) c->lastArrival = -1;
  else {
    if (c->lastArrival >= 0 && !(speechFrames && now - c->lastArrival > TURN_GAP_MS)) {
      double dev = fabs(now - c->lastArrival - FRAME_MS);
      long bin = lround(dev * 10);
      hist[bin > BINS ? BINS : bin]++;
    }
    c->lastArrival = now;
  }
  // The newest input frame with this mark: an echo cannot come before its input was written.
  long marks = c->markAt >= 0 ? CARRIER_MARKS : WEB_MARKS, last = c->seq - 1;
  long k = mark < 0 ? -1 : last - ((last - mark) % marks + marks) % marks;
  if (k < 0 || k <= c->lastSeq) {  // unreadable, or a repeat: never counted
    c->unidentified++;
    return;
  }
  c->lastSeq = k;
  if (k < c->k0 || k >= c->k1) return;
  double late = now - dueMs(c, k);
  long bin = lround(late * 10);
  latency[bin < 0 ? 0 : bin > BINS ? BINS : bin]++;
  if (late > DEADLINE_MS) c->expired++;
  else {
    c->received++;
    if (late > LATE_MS) c->late++;
  }
}

/** Adds the samples of payload bytes [pos, pos + len) that lie in the frame's middle half. */
static void sumMiddle(Conn *c, const uint8_t *p, uint64_t pos, size_t len) {
  uint64_t q = pos > c->midFrom ? pos : c->midFrom, to = pos + len < c->midTo ? pos + len : c->midTo;
  if (q >= to) return;
  if (q & 1) c->sum += (int16_t)(c->lo | p[q++ - pos] << 8);
  for (; q + 1 < to; q += 2) c->sum += (int16_t)(p[q - pos] | p[q + 1 - pos] << 8);
  if (q < to) c->lo = p[q - pos];
}

/** The mark of a PCM frame from the mean of its middle half, or -1. */
static long pcmMark(const Conn *c) {
  uint64_t samples = (c->midTo - c->midFrom) / 2;
  if (!samples || speechFrames) return -1;
  double x = ((double)c->sum / samples - MARK_STEP / 2.0) / MARK_STEP + WEB_MARKS / 2;
  long m = lround(x);
  return fabs(x - m) > 0.25 || m < 0 || m >= WEB_MARKS ? -1 : m;
}

/** The mark of a carrier `media` frame from its payload's first four base64 characters, or -1. */
static long textMark(const Conn *c) {
  const char *at = memmem(c->peek, c->peekHave, PAYLOAD_KEY, sizeof PAYLOAD_KEY - 1);
  if (!at || at + sizeof PAYLOAD_KEY - 1 + 4 > c->peek + c->peekHave) return -1;
  at += sizeof PAYLOAD_KEY - 1;
  uint32_t bits = 0;
  for (int i = 0; i < 4; i++) {
    int v = b64value[(uint8_t)at[i]];
    if (v < 0) return -1;
    bits = bits << 6 | (uint32_t)v;
  }
  long mark = 0;
  for (int i = 0; i < 3; i++) {
    uint32_t b = bits >> (16 - 8 * i) & 0xff;
    if (b < MULAW_MARK) return -1;
    mark |= (long)(b - MULAW_MARK) << (5 * i);
  }
  return mark;
}

static void parse(Conn *c, const uint8_t *buf, size_t len, double now) {
  size_t off = 0;
  while (off < len) {
    if (c->remaining > 0) {
      size_t take = len - off < c->remaining ? len - off : c->remaining;
      if (c->kind == PCM) sumMiddle(c, buf + off, c->size - c->remaining, take);
      else if (c->kind == TEXT && c->peekHave < c->peekNeed) {
        size_t copy = take < (size_t)(c->peekNeed - c->peekHave) ? take : (size_t)(c->peekNeed - c->peekHave);
        memcpy(c->peek + c->peekHave, buf + off, copy);
        c->peekHave += copy;
        if (c->peekHave == c->peekNeed && memcmp(c->peek, MEDIA_PREFIX, PREFIX_LEN) == 0) onFrame(c, now, textMark(c));
      }
      c->remaining -= take, off += take;
      if (c->remaining == 0 && c->kind == PCM) onFrame(c, now, pcmMark(c));
      continue;
    }
    while (c->hdrHave < 2 && off < len) c->hdr[c->hdrHave++] = buf[off++];
    if (c->hdrHave < 2) return;
    int len7 = c->hdr[1] & 0x7f, need = len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
    while (c->hdrHave < need && off < len) c->hdr[c->hdrHave++] = buf[off++];
    if (c->hdrHave < need) return;
    uint64_t size = len7;
    if (len7 == 126) size = (uint64_t)c->hdr[2] << 8 | c->hdr[3];
    if (len7 == 127) {
      size = 0;
      for (int i = 2; i < 10; i++) size = size << 8 | c->hdr[i];
    }
    int opcode = c->hdr[0] & 0x0f, carrier = c->markAt >= 0;
    c->hdrHave = 0;
    c->size = c->remaining = size;
    c->kind = opcode == 2 && !carrier ? PCM : opcode == 1 && carrier && size >= PREFIX_LEN ? TEXT : SKIP;
    if (c->kind == PCM) {
      uint64_t samples = size % 2 ? 0 : size / 2;
      c->midFrom = 2 * (samples / 4), c->midTo = 2 * (samples - samples / 4);
      c->sum = 0;
      if (size == 0) onFrame(c, now, -1);
    }
    c->peekHave = 0;
    c->peekNeed = c->kind == TEXT ? (size < PEEK_LEN ? (int)size : PEEK_LEN) : 0;
  }
}

static void readable(Conn *c) {
  static uint8_t buf[1 << 16];
  for (;;) {
    ssize_t r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (r == 0) return die(c);
    if (r < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) die(c);
      return;
    }
    double now = nowMs();
    size_t off = 0;
    if (c->state == UPGRADING) {
      size_t room = sizeof c->head - 1 - c->headLen, take = (size_t)r < room ? (size_t)r : room;
      memcpy(c->head + c->headLen, buf, take);
      c->headLen += take;
      c->head[c->headLen] = 0;
      char *end = strstr(c->head, "\r\n\r\n");
      if (!end) {
        if (c->headLen == sizeof c->head - 1) die(c);
        return;
      }
      if (strncmp(c->head, "HTTP/1.1 101", 12) != 0) return die(c);
      c->state = OPEN;
      // A fresh socket takes a few hundred bytes at once.
      if (c->hello && send(c->fd, c->hello, c->helloLen, MSG_NOSIGNAL) != (ssize_t)c->helloLen) return die(c);
      off = take - (c->headLen - (end + 4 - c->head));
    }
    parse(c, buf + off, r - off, now);
    if ((size_t)r < sizeof buf) return;
  }
}

static void connected(Conn *c) {
  int err = 0;
  socklen_t l = sizeof err;
  getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
  if (err) return die(c);
  char req[1024];
  int len = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     c->path, c->host, c->port);
  if (send(c->fd, req, len, MSG_NOSIGNAL) != len) return die(c);
  c->state = UPGRADING;
  arm(c, 0);
}

static void open_conn(Conn *c) {
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(c->port)};
  inet_pton(AF_INET, c->host, &a.sin_addr);
  c->state = CONNECTING;
  c->wantOut = 1;
  c->lastArrival = -1;
  c->lastSeq = -1;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
  epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
  if (connect(c->fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) die(c);
}

static void handle(struct epoll_event *e) {
  Conn *c = e->data.ptr;
  if (c->state == CONNECTING) {
    if (e->events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) connected(c);
    return;
  }
  if (e->events & (EPOLLIN | EPOLLERR | EPOLLHUP)) readable(c);
  if (c->state != DEAD && (e->events & EPOLLOUT)) flush(c);
}

/** Waits up to `ms` for socket events and handles them. */
static void poll_once(int ms) {
  struct epoll_event evs[512];
  int k = epoll_wait(ep, evs, 512, ms);
  for (int i = 0; i < k; i++) {
    if (evs[i].data.ptr) handle(&evs[i]);
  }
}

/** Opens every connection, at most OPENING_AT_ONCE in flight, like the Node client's batches of 100. */
static int open_all(void) {
  for (int i = 0; i < n; i += OPENING_AT_ONCE) {
    int end = i + OPENING_AT_ONCE < n ? i + OPENING_AT_ONCE : n;
    for (int j = i; j < end; j++) open_conn(&conns[j]);
    double deadline = nowMs() + 30000;
    for (;;) {
      int pending = 0;
      for (int j = i; j < end; j++) pending += conns[j].state == CONNECTING || conns[j].state == UPGRADING;
      if (!pending || nowMs() > deadline) break;
      poll_once(50);
    }
    for (int j = i; j < end; j++)
      if (conns[j].state != OPEN) die(&conns[j]);
  }
  int live = 0;
  for (int i = 0; i < n; i++)
    if (conns[i].state == OPEN) conns[i].group = live++ % GROUPS, conns[i].live = 1;
  return live;
}

static double percentile(const uint32_t *h, double p) {
  uint64_t total = 0, acc = 0;
  for (int i = 0; i <= BINS; i++) total += h[i];
  if (!total) return 0;
  uint64_t target = (uint64_t)ceil(total * p);
  for (int i = 0; i <= BINS; i++) {
    acc += h[i];
    if (acc >= target) return i / 10.0;
  }
  return BINS / 10.0;
}

/** The window's counts over every session that was open when the load started. */
static void report(int live, double cpu, double windowMs) {
  uint64_t due = 0, unsent = 0, received = 0, missing = 0, late = 0, expired = 0, unidentified = 0;
  for (int i = 0; i < n; i++) {
    Conn *c = &conns[i];
    if (!c->live) continue;
    long d = c->k1 - c->k0;
    due += d, unsent += c->unsent, received += c->received, late += c->late, expired += c->expired, unidentified += c->unidentified;
    // Per session, so that one session's surplus (if there ever were one) cannot hide another's loss.
    missing += d > (long)c->received ? d - c->received : 0;
  }
  printf("done {\"connected\":%d,\"refused\":%d,\"dueFrames\":%llu,\"sentFrames\":%llu,\"receivedFrames\":%llu,"
         "\"missingFrames\":%llu,\"lateFrames\":%llu,\"expiredFrames\":%llu,\"unidentifiedFrames\":%llu,"
         "\"lateMs\":%d,\"deadlineMs\":%d,\"jitterP50Ms\":%.1f,\"jitterP99Ms\":%.1f,\"latencyP50Ms\":%.1f,\"latencyP99Ms\":%.1f,"
         "\"cpuMs\":%.1f,\"windowMs\":%.1f,\"lossy\":[",
         live, n - live, (unsigned long long)due, (unsigned long long)(due - unsent), (unsigned long long)received,
         (unsigned long long)missing, (unsigned long long)late, (unsigned long long)expired, (unsigned long long)unidentified,
         LATE_MS, DEADLINE_MS, percentile(hist, 0.5), percentile(hist, 0.99), percentile(latency, 0.5), percentile(latency, 0.99), cpu, windowMs);
  // [target index, due, missing] of every session that lost frames.
  const char *sep = "";
  for (int i = 0; i < n; i++) {
    Conn *c = &conns[i];
    long d = c->k1 - c->k0;
    if (c->live && d > (long)c->received) printf("%s[%d,%ld,%ld]", sep, i, d, d - (long)c->received), sep = ",";
  }
  printf("]}\n");
  fflush(stdout);
}

static void run(int warmupMs, int measureMs) {
  int live = open_all();
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &tev);
  double start = nowMs(), windowStart = 0, cpuStart = cpuMs(), cpuEnd = 0, windowMs = 0;
  t0 = start;
  for (int i = 0; i < n; i++) {
    conns[i].k0 = firstDueAt(&conns[i], warmupMs);
    conns[i].k1 = firstDueAt(&conns[i], warmupMs + measureMs);
  }
  double stopAt = start + warmupMs + measureMs, graceEnd = -1;
  long tick = 0;
  for (;;) {
    double now = nowMs();
    if (graceEnd < 0) {
      // Catch up every sub-tick that is due (a late wake-up sends the frames it owes).
      while (start + tick * (FRAME_MS / (double)GROUPS) <= now) {
        int g = tick % GROUPS;
        for (int i = 0; i < n; i++) {
          Conn *c = &conns[i];
          if (c->state != OPEN || c->group != g) continue;
          long k = c->seq++;
          if (!queueFrame(c, k) && k >= c->k0 && k < c->k1) c->unsent++;
        }
        tick++;
      }
      if (!measuring && now >= start + warmupMs) {
        measuring = 1;
        windowStart = now;
        cpuStart = cpuMs();
        printf("measure-start\n");
        fflush(stdout);
      }
      if (now >= stopAt) {
        cpuEnd = cpuMs();
        windowMs = nowMs() - windowStart;
        printf("measure-end\n");
        fflush(stdout);
        graceEnd = now + GRACE_MS;  // frames due in the window still arrive in time
      }
    } else if (now >= graceEnd) break;
    double next = graceEnd >= 0 ? graceEnd : start + tick * (FRAME_MS / (double)GROUPS);
    struct itimerspec its = {0};
    struct timespec base;
    clock_gettime(CLOCK_MONOTONIC, &base);
    double wait = next - nowMs();
    if (wait < 0.001) wait = 0.001;
    long ns = base.tv_nsec + (long)(wait * 1e6);
    its.it_value.tv_sec = base.tv_sec + ns / 1000000000L;
    its.it_value.tv_nsec = ns % 1000000000L;
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
    poll_once(-1);
    uint64_t expirations;
    if (read(tfd, &expirations, sizeof expirations) < 0) { /* not yet expired */ }
  }
  measuring = 0;
  epoll_ctl(ep, EPOLL_CTL_DEL, tfd, NULL);
  close(tfd);
  report(live, cpuEnd - cpuStart, windowMs);
}

/** Decodes base64 `in` into a new buffer; its length goes to `len`. */
static uint8_t *base64(const char *in, size_t *len) {
  size_t chars = strlen(in);
  uint8_t *out = malloc(chars / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  *len = 0;
  for (size_t i = 0; i < chars && in[i] != '='; i++) {
    if (b64value[(uint8_t)in[i]] < 0) continue;
    acc = acc << 6 | (uint32_t)b64value[(uint8_t)in[i]];
    if ((bits += 6) >= 8) out[(*len)++] = (uint8_t)(acc >> (bits -= 8));
  }
  return out;
}

/** One target line: host, port, path, and for a carrier session its opening and media frames. */
static void target(Conn *c, char *line, long index) {
  char *save = NULL, *host = strtok_r(line, " ", &save), *port = strtok_r(NULL, " ", &save), *path = strtok_r(NULL, " ", &save);
  char *hello = strtok_r(NULL, " ", &save), *media = strtok_r(NULL, " ", &save), *markAt = strtok_r(NULL, " ", &save);
  snprintf(c->host, sizeof c->host, "%s", host ? host : "");
  snprintf(c->path, sizeof c->path, "%s", path ? path : "/");
  c->port = port ? atoi(port) : 0;
  c->rep = webFrames;
  c->frameLen = FRAME_LEN;
  c->repLen = sizeof webFrames;
  c->markAt = -1;
  if (speechFrames) {
    c->rep = speechFrames;
    c->repLen = (size_t)speechCount * FRAME_LEN;
    c->off = (size_t)(index * 97 % speechCount) * FRAME_LEN;
  }
  if (hello && media && markAt) {
    c->hello = base64(hello, &c->helloLen);
    size_t len;
    uint8_t *one = base64(media, &len), *rep = malloc(len * CARRIER_SLOTS);
    for (int r = 0; r < CARRIER_SLOTS; r++) memcpy(rep + r * len, one, len);
    free(one);
    c->rep = rep;
    c->frameLen = (int)len;
    c->repLen = len * CARRIER_SLOTS;
    c->markAt = atoi(markAt);
  }
}

int main(void) {
  const char *cpu = getenv("BENCH_CLIENT_CPU");
  if (cpu && *cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(cpu), &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  memset(b64value, -1, sizeof b64value);
  for (int i = 0; i < 64; i++) b64value[(uint8_t)B64[i]] = (int8_t)i;
  buildFrames();
  const char *speech = getenv("BENCH_CLIENT_SPEECH");
  if (speech && *speech) loadSpeech(speech);
  ep = epoll_create1(0);
  printf("ready\n");
  fflush(stdout);
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  while ((got = getline(&line, &cap, stdin)) > 0) {
    line[strcspn(line, "\n")] = 0;
    int warmup, measure;
    if (sscanf(line, "start %d %d %d", &warmup, &measure, &n) == 3) {
      conns = calloc(n, sizeof *conns);
      for (int i = 0; i < n && getline(&line, &cap, stdin) > 0; i++) {
        line[strcspn(line, "\n")] = 0;
        target(&conns[i], line, i);
      }
      run(warmup, measure);
    } else if (strcmp(line, "hangup") == 0) {
      for (int i = 0; i < n; i++)
        if (conns[i].state == OPEN) send(conns[i].fd, CLOSE_FRAME, sizeof CLOSE_FRAME, MSG_NOSIGNAL), shutdown(conns[i].fd, SHUT_WR);
      printf("hung-up\n");
      fflush(stdout);
    } else if (strcmp(line, "exit") == 0) break;
  }
  return 0;
}
