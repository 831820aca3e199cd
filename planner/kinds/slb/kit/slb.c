/*
 * slb.c - an SLB-compatible memory benchmark, written from scratch for planner.
 *
 * It mimics the *interface* of Kevin Closson's Silly Little Benchmark (runit.sh <users>, one process
 * per user with a private buffer, a common start, random 8-byte reads then random 8-byte writes, and
 * the same output lines) but shares no code with it. Its numbers are not comparable with his kit.
 *
 * Usage: slb -u USERS [-s SECONDS] [-m MB]
 *   USERS    processes to fork (each one is a "user")
 *   SECONDS  length of the read phase and of the write phase (default $SLB_SECONDS or 10; may be
 *            fractional)
 *   MB       buffer per user in MiB (default $SLB_MB or 512)
 *
 * Start barrier: every user touches its buffer, writes one byte to a "ready" pipe and blocks reading
 * the "go" pipe. The parent releases them all with one write of USERS bytes once every user is ready.
 * A user whose read of "go" returns EOF knows the parent died and exits without running.
 *
 * Exit status: 0 when every user finished; 1 when any user failed or was killed; 2 on bad usage.
 * Builds with any C99 compiler: cc -O2 -o slb slb.c (no extra libraries).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Check the clock once per this many operations: rare enough to cost nothing, frequent enough that
 * a phase overruns its time by well under a millisecond. */
#define OPS_PER_CHECK 65536u
#define MAX_USERS 4096

/* What a user sends back to the parent through the results pipe (one write, < PIPE_BUF). */
struct result {
    int32_t user;
    uint64_t rops, wops;
    double rsecs, wsecs;
};

static pid_t children[MAX_USERS];
static int nchildren;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift64* (Vigna): a few cycles per number, so the loop measures memory, not the generator. */
static inline uint64_t next_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Map a random number onto [0, n) without a division (Lemire's multiply-shift); n < 2^32 words. */
static inline uint64_t pick(uint64_t r, uint64_t n)
{
    return ((r >> 32) * n) >> 32;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static volatile uint64_t sink; /* keeps the reads from being optimised away */

static uint64_t read_phase(const uint64_t *buf, uint64_t nwords, double seconds, uint64_t *state, double *secs)
{
    uint64_t ops = 0, sum = 0;
    double start = now_s(), end = start + seconds, t;
    do {
        for (unsigned i = 0; i < OPS_PER_CHECK; i++)
            sum += buf[pick(next_rand(state), nwords)];
        ops += OPS_PER_CHECK;
        t = now_s();
    } while (t < end);
    sink = sum;
    *secs = t - start;
    return ops;
}

static uint64_t write_phase(uint64_t *buf, uint64_t nwords, double seconds, uint64_t *state, double *secs)
{
    uint64_t ops = 0;
    double start = now_s(), end = start + seconds, t;
    do {
        for (unsigned i = 0; i < OPS_PER_CHECK; i++) {
            uint64_t r = next_rand(state);
            buf[pick(r, nwords)] = r;
        }
        ops += OPS_PER_CHECK;
        t = now_s();
    } while (t < end);
    *secs = t - start;
    return ops;
}

static int format_line(char *out, size_t size, const char *kind, uint64_t ops, double secs)
{
    double nsec = secs * 1e9 / (double)ops;
    return snprintf(out, size, "Total %s %" PRIu64 "  Secs %.1f  Avg nsec/op %" PRIu64 " TPUT ops/sec %.2f\n",
                    kind, ops, secs, (uint64_t)(nsec + 0.5), (double)ops / secs);
}

/* One user: runs in a forked child and never returns. */
static void user(int id, size_t mb, double seconds, int ready_w, int go_r, int results_w)
{
    uint64_t nwords = (uint64_t)mb * 1024 * 1024 / sizeof(uint64_t);
    uint64_t *buf = malloc(nwords * sizeof(uint64_t));
    char text[1024];
    int len;
    if (buf == NULL) {
        fprintf(stderr, "slb: user %d: cannot allocate %zu MB: %s\n", id, mb, strerror(errno));
        _exit(1);
    }
    /* Touch every page with non-zero data so the buffer is backed by real memory before the start. */
    for (uint64_t i = 0; i < nwords; i++)
        buf[i] = i * 0x9E3779B97F4A7C15ULL;

    len = snprintf(text, sizeof text, "Buffer area size  %" PRIu64 " KB  ADDR 0x%" PRIXPTR "\nWaiting for semaphore...\n",
                   (uint64_t)mb * 1024, (uintptr_t)buf);
    if (write_all(ready_w, "r", 1) != 0)
        _exit(1);
    close(ready_w);

    char go;
    ssize_t n;
    do
        n = read(go_r, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) {
        fprintf(stderr, "slb: user %d: start signal never came (parent gone)\n", id);
        _exit(1);
    }

    uint64_t state = 0x853C49E6748FEA9BULL ^ ((uint64_t)getpid() << 20) ^ (uint64_t)id;
    struct result res = {.user = id};
    res.rops = read_phase(buf, nwords, seconds, &state, &res.rsecs);
    res.wops = write_phase(buf, nwords, seconds, &state, &res.wsecs);

    /* The seed's layout: write line first, then read line, one block per user in a single write
     * so blocks from concurrent users never interleave. */
    len += format_line(text + len, sizeof text - (size_t)len, "wops", res.wops, res.wsecs);
    len += format_line(text + len, sizeof text - (size_t)len, "rops", res.rops, res.rsecs);
    if (write_all(STDOUT_FILENO, text, (size_t)len) != 0 || write_all(results_w, &res, sizeof res) != 0)
        _exit(1);
    _exit(0);
}

static void forward_signal(int sig)
{
    for (int i = 0; i < nchildren; i++)
        kill(children[i], SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void kill_children(void)
{
    for (int i = 0; i < nchildren; i++)
        kill(children[i], SIGTERM);
}

static double env_number(const char *name, double fallback)
{
    const char *v = getenv(name);
    return v && *v ? strtod(v, NULL) : fallback;
}

static void usage(void)
{
    fprintf(stderr, "usage: slb -u USERS [-s SECONDS] [-m MB]   (env: SLB_SECONDS, SLB_MB)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    long users = 0;
    double seconds = env_number("SLB_SECONDS", 10.0);
    double mb = env_number("SLB_MB", 512.0);
    int opt;
    while ((opt = getopt(argc, argv, "u:s:m:")) != -1) {
        switch (opt) {
        case 'u': users = strtol(optarg, NULL, 10); break;
        case 's': seconds = strtod(optarg, NULL); break;
        case 'm': mb = strtod(optarg, NULL); break;
        default: usage();
        }
    }
    if (users < 1 || users > MAX_USERS) {
        fprintf(stderr, "slb: users must be 1..%d\n", MAX_USERS);
        usage();
    }
    if (!(seconds > 0) || seconds > 86400) {
        fprintf(stderr, "slb: seconds must be > 0 and <= 86400\n");
        usage();
    }
    if (!(mb >= 1) || mb > 32767 || mb != (double)(size_t)mb) {
        fprintf(stderr, "slb: MB must be a whole number 1..32767\n");
        usage();
    }

    int ready[2], go[2], results[2];
    if (pipe(ready) != 0 || pipe(go) != 0 || pipe(results) != 0) {
        perror("slb: pipe");
        return 1;
    }
    printf("Users: %ld\n", users);
    fflush(stdout); /* or the children inherit the buffered line and print it again */

    signal(SIGINT, forward_signal);
    signal(SIGTERM, forward_signal);
    signal(SIGPIPE, SIG_IGN);
    for (long i = 0; i < users; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("slb: fork");
            kill_children();
            return 1;
        }
        if (pid == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            close(ready[0]);
            close(go[1]);
            close(results[0]);
            user((int)i, (size_t)mb, seconds, ready[1], go[0], results[1]);
        }
        children[nchildren++] = pid;
    }
    close(ready[1]);
    close(go[0]);
    close(results[1]);

    /* Every user writes one byte when ready; EOF before USERS bytes means one died on the way. */
    long nready = 0;
    char c;
    ssize_t n;
    while (nready < users && ((n = read(ready[0], &c, 1)) == 1 || (n < 0 && errno == EINTR)))
        if (n == 1)
            nready++;
    int failed = 0;
    if (nready < users) {
        fprintf(stderr, "slb: only %ld of %ld users got ready; stopping\n", nready, users);
        kill_children();
        failed = 1;
    } else {
        char gobytes[MAX_USERS];
        memset(gobytes, 'g', sizeof gobytes);
        if (write_all(go[1], gobytes, (size_t)users) != 0) {
            perror("slb: release users");
            kill_children();
            failed = 1;
        }
    }
    close(go[1]);

    /* Read results until EOF before reaping, so a full pipe can never block a user. */
    struct result res;
    uint64_t total_w = 0, total_r = 0;
    double runtime = 0;
    long nresults = 0;
    while ((n = read(results[0], &res, sizeof res)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (n != (ssize_t)sizeof res)
            break; /* a short record cannot happen below PIPE_BUF; treat it as a failure */
        total_w += res.wops;
        total_r += res.rops;
        if (res.wsecs > runtime)
            runtime = res.wsecs;
        if (res.rsecs > runtime)
            runtime = res.rsecs;
        nresults++;
    }
    for (int i = 0; i < nchildren; i++) {
        int status = 0;
        pid_t w;
        while ((w = waitpid(children[i], &status, 0)) < 0 && errno == EINTR)
            ;
        if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 1;
    }
    if (failed || nresults != users) {
        fprintf(stderr, "slb: %ld of %ld users completed\n", nresults, users);
        return 1;
    }
    /* Runtime is the longest phase of any user, as in the seed's summary (rates = totals / runtime). */
    printf("\nTest Summary: Total wops %" PRIu64 "  Total rops  %" PRIu64 " Runtime seconds: %.0f wops/s %" PRIu64
           " rops/s %" PRIu64 "\n",
           total_w, total_r, runtime, (uint64_t)((double)total_w / runtime), (uint64_t)((double)total_r / runtime));
    return 0;
}
