// The benchmark's load client, in C so that on a small machine the client is not what limits a
// run (a Node client took 93 % of a core at 1,000 sessions, this one ≈ 60 %, nearly all of it
// the kernel's TCP work). Raw non-blocking TCP sockets in one epoll loop, a hand-made WebSocket
// upgrade, one pre-masked frame written to every socket every 20 ms (sessions spread over four
// 5 ms sub-ticks of an absolute timerfd), and a frame parser that only counts server audio
// frames and their arrival times, without copying them.
//
// Web sessions write a 20 ms PCM16 frame at 16 kHz and count binary frames. Carrier sessions
// (Twilio media streams) write the opening and `media` frames they are given, and count text
// frames whose payload starts with {"event":"media" (only those 16 bytes are looked at).
//
// Driven by load-client.ts over stdin/stdout lines:
//   in:  "start <warmup_ms> <measure_ms> <n>" then n lines "<host> <port> <path> [<hello> <media>]"
//        (carrier frames in base64, already masked), "hangup", "exit"
//   out: "ready", "measure-start", "measure-end", "done <ClientStats JSON>", "hung-up"
// BENCH_CLIENT_CPU=<k> pins the process to CPU k.
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
enum { FRAME_LEN = 8 + PAYLOAD, REPEATS = 16, OPENING_AT_ONCE = 100, GRACE_MS = 300, PREFIX_LEN = 16 };
static const char MEDIA_PREFIX[PREFIX_LEN + 1] = "{\"event\":\"media\"";
enum { CONNECTING, UPGRADING, OPEN, DEAD };

typedef struct {
  int fd, state, group;
  char host[64], path[512];
  int port;
  char head[512];
  int headLen;
  uint8_t hdr[14];
  int hdrHave;
  uint64_t remaining;  // payload bytes of the current server frame still to skip
  double lastArrival;  // ms, -1 until the first frame of the measuring window
  uint64_t owed;       // frame bytes queued but not yet accepted by the kernel
  int off;             // position of the next owed byte within the repeated frame
  int wantOut;         // EPOLLOUT armed
  const uint8_t *rep;  // the frame this socket writes, repeated REPEATS times (backlogs leave in one write)
  int frameLen;
  uint8_t *hello;      // written once after the upgrade (carrier: `connected` + `start`)
  size_t helloLen;
  char peek[PREFIX_LEN];  // the start of a text frame's payload
  int peekNeed, peekHave;
} Conn;

static uint8_t frames[FRAME_LEN * REPEATS];  // the web sessions' masked PCM16 frame, repeated
static const uint8_t CLOSE_FRAME[] = {0x88, 0x82, 1, 2, 3, 4, 0x03 ^ 1, 0xe8 ^ 2};  // close 1000, masked
static uint32_t hist[BINS + 1];
static int measuring;
static uint64_t sentFrames, receivedFrames;
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

static void buildFrame(void) {
  const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
  uint8_t *f = frames;
  f[0] = 0x82, f[1] = 0x80 | 126, f[2] = PAYLOAD >> 8, f[3] = PAYLOAD & 0xff;
  memcpy(f + 4, mask, 4);
  for (int i = 0; i < PAYLOAD / 2; i++) {
    int16_t s = (int16_t)lround(6000 * sin(2 * M_PI * 300 * i / IN_RATE));
    f[8 + 2 * i] = (uint8_t)(s & 0xff) ^ mask[(2 * i) & 3];
    f[8 + 2 * i + 1] = (uint8_t)((uint16_t)s >> 8) ^ mask[(2 * i + 1) & 3];
  }
  for (int r = 1; r < REPEATS; r++) memcpy(frames + r * FRAME_LEN, frames, FRAME_LEN);
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
    size_t chunk = (size_t)c->frameLen * REPEATS - c->off;
    if (chunk > c->owed) chunk = c->owed;
    ssize_t w = send(c->fd, c->rep + c->off, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return arm(c, 1);
      return die(c);
    }
    c->owed -= w;
    c->off = (c->off + w) % c->frameLen;
  }
  arm(c, 0);
}

static void onFrame(Conn *c, double now) {
  if (!measuring) {
    c->lastArrival = -1;
    return;
  }
  receivedFrames++;
  if (c->lastArrival >= 0) {
    double dev = fabs(now - c->lastArrival - FRAME_MS);
    long bin = lround(dev * 10);
    hist[bin > BINS ? BINS : bin]++;
  }
  c->lastArrival = now;
}

static void parse(Conn *c, const uint8_t *buf, size_t len, double now) {
  size_t off = 0;
  while (off < len) {
    if (c->remaining > 0) {
      size_t take = len - off < c->remaining ? len - off : c->remaining;
      if (c->peekHave < c->peekNeed) {
        size_t copy = take < (size_t)(c->peekNeed - c->peekHave) ? take : (size_t)(c->peekNeed - c->peekHave);
        memcpy(c->peek + c->peekHave, buf + off, copy);
        c->peekHave += copy;
        if (c->peekHave == c->peekNeed && memcmp(c->peek, MEDIA_PREFIX, PREFIX_LEN) == 0) onFrame(c, now);
      }
      c->remaining -= take, off += take;
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
    int opcode = c->hdr[0] & 0x0f;
    c->hdrHave = 0;
    c->remaining = size;
    c->peekHave = 0;
    c->peekNeed = opcode == 1 && size >= PREFIX_LEN ? PREFIX_LEN : 0;
    if (opcode == 2) onFrame(c, now);
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
    if (conns[i].state == OPEN) conns[i].group = live++ % GROUPS;
  return live;
}

static double percentile(double p) {
  uint64_t total = 0, acc = 0;
  for (int i = 0; i <= BINS; i++) total += hist[i];
  if (!total) return 0;
  uint64_t target = (uint64_t)ceil(total * p);
  for (int i = 0; i <= BINS; i++) {
    acc += hist[i];
    if (acc >= target) return i / 10.0;
  }
  return BINS / 10.0;
}

static void run(int warmupMs, int measureMs) {
  int live = open_all();
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &tev);
  double start = nowMs(), windowStart = 0, cpuStart = cpuMs(), cpuEnd = 0, windowMs = 0;
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
          c->owed += c->frameLen;
          if (!c->wantOut) flush(c);
          if (measuring) sentFrames++;
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
        graceEnd = now + GRACE_MS;  // in-flight output still counts
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
  printf("done {\"connected\":%d,\"refused\":%d,\"sentFrames\":%llu,\"receivedFrames\":%llu,\"jitterP50Ms\":%.1f,"
         "\"jitterP99Ms\":%.1f,\"cpuMs\":%.1f,\"windowMs\":%.1f}\n",
         live, n - live, (unsigned long long)sentFrames, (unsigned long long)receivedFrames, percentile(0.5), percentile(0.99),
         cpuEnd - cpuStart, windowMs);
  fflush(stdout);
}

/** Decodes base64 `in` into a new buffer; its length goes to `len`. */
static uint8_t *base64(const char *in, size_t *len) {
  static int8_t value[256];
  if (!value['B']) {
    memset(value, -1, sizeof value);
    const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; i++) value[(uint8_t)abc[i]] = (int8_t)i;
  }
  size_t n = strlen(in);
  uint8_t *out = malloc(n / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  *len = 0;
  for (size_t i = 0; i < n && in[i] != '='; i++) {
    if (value[(uint8_t)in[i]] < 0) continue;
    acc = acc << 6 | (uint32_t)value[(uint8_t)in[i]];
    if ((bits += 6) >= 8) out[(*len)++] = (uint8_t)(acc >> (bits -= 8));
  }
  return out;
}

/** One target line: host, port, path, and for a carrier session its opening and media frames. */
static void target(Conn *c, char *line) {
  char *save = NULL, *host = strtok_r(line, " ", &save), *port = strtok_r(NULL, " ", &save), *path = strtok_r(NULL, " ", &save);
  char *hello = strtok_r(NULL, " ", &save), *media = strtok_r(NULL, " ", &save);
  snprintf(c->host, sizeof c->host, "%s", host ? host : "");
  snprintf(c->path, sizeof c->path, "%s", path ? path : "/");
  c->port = port ? atoi(port) : 0;
  c->rep = frames;
  c->frameLen = FRAME_LEN;
  if (hello && media) {
    c->hello = base64(hello, &c->helloLen);
    size_t len;
    uint8_t *one = base64(media, &len), *rep = malloc(len * REPEATS);
    for (int r = 0; r < REPEATS; r++) memcpy(rep + r * len, one, len);
    free(one);
    c->rep = rep;
    c->frameLen = (int)len;
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
  buildFrame();
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
        target(&conns[i], line);
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
