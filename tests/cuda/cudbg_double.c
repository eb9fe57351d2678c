/*
 * A test double of the driver side of NVIDIA's CUDA debugger API, for Cohort's tests
 * (cuda-backend/tests/cudbg.rs; see docs/CUDA.md). It is NOT NVIDIA's library and runs no GPU
 * code: it plays both halves of libcuda's debugger support with a scripted device.
 *
 * - In the debuggee (linked as its "libcuda"): the handshake variables the debugger writes,
 *   cuInit() (the driver's initialisation point, where the debugger stops the program), and
 *   cohortDoubleLaunch(), a kernel launch. Under a debugger (cudbgIpcFlag set) they talk to the
 *   debugger side over a Unix socket named by cudbgApiClientPid and cudbgSessionId.
 * - In the debugger (loaded with dlopen): cudbgGetAPIVersion() and cudbgGetAPI(), whose table
 *   has the slot layout of cudadebugger.h API 12.9 revision 156, filled for the entries the
 *   client uses. The device: 1 device, 4 SMs, 64 warps per SM, 32 lanes, 255 registers per
 *   lane. Blocks run one at a time (block b on SM b, warps 0..), each warp from the kernel's
 *   entry to the first breakpoint at or after its PC, else it exits. Registers R0/R2 and R4/R5
 *   hold the kernel's data pointer and the block's part of it, R1 the stack pointer, R3
 *   threadIdx.x; shared memory holds the block's input words at 0x400 (where the kernel's
 *   __shared__ array is); local memory 64 bytes per thread at 0xfffc80, word k of thread t
 *   being (t << 8) | k; global memory the kernel's data at 0x7fffce000000.
 *   COHORT_CUDBG_DOUBLE_FAULT=BLOCK:THREAD:PC (hex) in the debuggee's environment makes that
 *   thread raise a Warp Illegal Address
 *   exception (CUDBG_EXCEPTION_WARP_ILLEGAL_ADDRESS) when its warp reaches PC; resuming after
 *   it aborts the kernel (the launch returns its data unchanged).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* ------------------------------------------------------------ handshake variables */
uint32_t cudbgIpcFlag;
uint32_t cudbgApiClientPid;
uint32_t cudbgApiClientRevision;
uint32_t cudbgSessionId;
uint32_t cudbgDebuggerCapabilities;
uint32_t cudbgEnableIntegratedMemcheck;
uint32_t cudbgEnablePreemptionDebugging;
uint32_t cudbgEnableLaunchBlocking;

/* CUDBGResult values */
enum {
    OK = 0, E_INVALID_ARGS = 4, E_UNINITIALIZED = 5, E_INVALID_MEMORY_ACCESS = 8,
    E_INTERNAL = 0xa, E_INVALID_DEVICE = 0xb, E_INVALID_SM = 0xc, E_INVALID_WARP = 0xd,
    E_INVALID_LANE = 0xe, E_INCOMPATIBLE_API = 0x13, E_INITIALIZATION_FAILURE = 0x14,
    E_NO_EVENT = 0x16, E_COMMUNICATION_FAILURE = 0x1c,
};

typedef struct { uint32_t x, y, z; } dim3_t;

#define NUM_SMS 4
#define NUM_WARPS 64
#define NUM_LANES 32
#define MAX_BLOCKS NUM_SMS
#define SHARED_SIZE 0x500
#define SHARED_DATA 0x400
#define LOCAL_BASE 0xfffc80ull
#define LOCAL_SIZE 64
#define GLOBAL_BASE 0x7fffce000000ull

/* ------------------------------------------------------------ wire */
enum { MSG_ELF = 1, MSG_LAUNCH = 2, MSG_CTX = 3, MSG_ACK = 100, MSG_DONE = 101 };
struct msg {
    uint32_t type, len, grid, block, tid;
    char name[64];
    char fault[64]; /* the debuggee's COHORT_CUDBG_DOUBLE_FAULT, for a launch */
};

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

static void socket_path(struct sockaddr_un *a, uint32_t pid, uint32_t sid)
{
    const char *t = getenv("TMPDIR");
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof a->sun_path, "%s/cohort-cudbg-double-%u-%u", t ? t : "/tmp",
             pid, sid);
}

/* ------------------------------------------------------------ debuggee side */
static int host_fd = -1;

static int host_wait(uint32_t type, void *payload, uint32_t max)
{
    struct msg m;
    if (read_all(host_fd, &m, sizeof m) || m.type != type || m.len > max)
        return -1;
    return m.len ? read_all(host_fd, payload, m.len) : 0;
}

int cuInit(unsigned int flags)
{
    (void)flags;
    if (!cudbgIpcFlag)
        return 0;
    struct sockaddr_un a;
    socket_path(&a, cudbgApiClientPid, cudbgSessionId);
    host_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (host_fd < 0 || connect(host_fd, (struct sockaddr *)&a, sizeof a) != 0) {
        fprintf(stderr, "cudbg double: cannot reach the debugger at %s\n", a.sun_path);
        return 999;
    }
    const char *path = getenv("COHORT_CUDBG_DOUBLE_CUBIN");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "cudbg double: COHORT_CUDBG_DOUBLE_CUBIN not readable\n");
        return 999;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return 999;
    }
    fclose(f);
    struct msg m = { .type = MSG_ELF, .len = (uint32_t)n };
    int bad = write_all(host_fd, &m, sizeof m) || write_all(host_fd, buf, (size_t)n);
    free(buf);
    if (bad || host_wait(MSG_ACK, NULL, 0))
        return 999;
    return 0;
}

static uint32_t bitrev(uint32_t v)
{
    uint32_t r = 0;
    for (int b = 0; b < 32; b++)
        if (v & (1u << b))
            r |= 1u << (31 - b);
    return r;
}

/* The program's host stub of the kernel (nvcc's `__device_stub__` functions), if it exports one:
   the runtime's launch goes through it. */
extern void __device_stub__bitreverse(uint32_t *data) __attribute__((weak));

int cohortDoubleLaunch(const char *kernel, uint32_t grid, uint32_t block, uint32_t *data,
                       uint32_t nwords)
{
    if (__device_stub__bitreverse && strcmp(kernel, "bitreverse") == 0)
        __device_stub__bitreverse(data);
    if (host_fd < 0) {
        for (uint32_t i = 0; i < nwords; i++)
            data[i] = bitrev(data[i]);
        return 0;
    }
    struct msg m = { .type = MSG_LAUNCH, .len = nwords * 4, .grid = grid, .block = block,
                     .tid = (uint32_t)syscall(SYS_gettid) };
    snprintf(m.name, sizeof m.name, "%s", kernel);
    const char *fault = getenv("COHORT_CUDBG_DOUBLE_FAULT");
    if (fault)
        snprintf(m.fault, sizeof m.fault, "%s", fault);
    if (write_all(host_fd, &m, sizeof m) || write_all(host_fd, data, m.len))
        return 999;
    if (host_wait(MSG_ACK, NULL, 0) || host_wait(MSG_DONE, data, nwords * 4))
        return 999;
    return 0;
}

/* ------------------------------------------------------------ debugger side */
typedef void (*callback_t)(void *);

struct event {
    uint32_t queue;
    unsigned char raw[92]; /* CUDBGEvent, packed */
};

static struct {
    pthread_mutex_t mu;
    bool initialized;
    int listen_fd, fd;
    struct sockaddr_un path;
    pthread_t reader;
    callback_t cb;
    struct event q[32];
    int qn;
    int pending; /* the debuggee message waiting for acknowledgeSyncEvents: MSG_ELF/LAUNCH */
    bool finished_pending;
    unsigned char *elf;
    uint64_t elf_size;
    /* the launched kernel */
    bool launched;
    char kernel[64];
    uint64_t entry, size;
    dim3_t grid, block;
    uint32_t host_tid;
    uint32_t *gmem;
    uint32_t nwords;
    uint64_t bps[16];
    int nbp;
    int cur;                  /* resident block, grid.x when all done */
    uint64_t pc[NUM_WARPS];
    bool broken[NUM_WARPS], exited[NUM_WARPS];
    uint32_t exception[NUM_WARPS][NUM_LANES];
    bool faulted;
    int fault_block;
    uint32_t fault_thread;
    uint64_t fault_pc;
} D = { .mu = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1, .fd = -1, .fault_block = -1 };

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

/* Queue an event (mutex held). */
static void queue_event(uint32_t queue, uint32_t kind, const unsigned char *cases, size_t n)
{
    if (D.qn == (int)(sizeof D.q / sizeof D.q[0]))
        return;
    struct event *e = &D.q[D.qn++];
    memset(e, 0, sizeof *e);
    e->queue = queue;
    put32(e->raw, kind);
    memcpy(e->raw + 4, cases, n);
}

static void notify(void)
{
    callback_t cb = D.cb;
    if (cb) {
        uint32_t data[2] = { D.host_tid, 0 };
        cb(data);
    }
}

static int warps_per_block(void) { return (int)((D.block.x * D.block.y * D.block.z + 31) / 32); }

/* Where the kernel's code is: its .text section, laid out as sections in order at their
 * alignment from 0 (an unrelocated cubin's layout, as the client lays it out too). */
static int find_kernel(const char *name, uint64_t *entry, uint64_t *size)
{
    if (D.elf_size < sizeof(Elf64_Ehdr))
        return -1;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)D.elf;
    if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > D.elf_size)
        return -1;
    Elf64_Shdr *sh = (Elf64_Shdr *)(D.elf + eh->e_shoff);
    const char *names = (const char *)D.elf + sh[eh->e_shstrndx].sh_offset;
    char want[80];
    snprintf(want, sizeof want, ".text.%s", name);
    uint64_t cursor = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (!(sh[i].sh_flags & SHF_EXECINSTR))
            continue;
        uint64_t al = sh[i].sh_addralign ? sh[i].sh_addralign : 1;
        cursor = (cursor + al - 1) / al * al;
        if (strcmp(names + sh[i].sh_name, want) == 0) {
            *entry = cursor;
            *size = sh[i].sh_size;
            return 0;
        }
        cursor += sh[i].sh_size;
    }
    return -1;
}

static void start_block(int b)
{
    D.cur = b;
    for (int w = 0; w < NUM_WARPS; w++) {
        D.pc[w] = D.entry;
        D.broken[w] = false;
        D.exited[w] = w >= warps_per_block();
        memset(D.exception[w], 0, sizeof D.exception[w]);
    }
}

/* Run the device until a breakpoint or the end of the kernel (mutex held). Returns true when
 * an event was queued. */
static bool run_device(void)
{
    if (D.faulted) {
        /* After an exception the context is gone: the kernel ends, its data unchanged. */
        D.faulted = false;
        D.cur = (int)D.grid.x;
        unsigned char c[48] = { 0 };
        put32(c + 4, D.host_tid);
        put64(c + 40, 1);
        queue_event(0, 0x3, c, sizeof c);
        D.finished_pending = true;
        return true;
    }
    while (D.cur < (int)D.grid.x) {
        bool any = false;
        for (int w = 0; w < warps_per_block(); w++) {
            if (D.exited[w])
                continue;
            uint64_t from = D.broken[w] ? D.pc[w] + 0x10 : D.pc[w];
            uint64_t best = UINT64_MAX;
            for (int i = 0; i < D.nbp; i++)
                if (D.bps[i] >= from && D.bps[i] < D.entry + D.size && D.bps[i] < best)
                    best = D.bps[i];
            uint32_t fw = D.fault_thread / NUM_LANES;
            if (D.cur == D.fault_block && (uint32_t)w == fw && D.fault_pc >= from
                && D.fault_pc < best && D.fault_pc < D.entry + D.size) {
                D.pc[w] = D.fault_pc;
                D.broken[w] = false;
                D.exception[w][D.fault_thread % NUM_LANES] = 14;
                D.faulted = true;
                any = true;
                continue;
            }
            D.broken[w] = best != UINT64_MAX;
            if (D.broken[w]) {
                D.pc[w] = best;
                any = true;
            } else {
                D.exited[w] = true;
            }
        }
        if (any) {
            unsigned char c[16] = { 0 };
            put64(c, D.faulted ? 0 : 1); /* brokenDevicesMask: device 0 */
            put64(c + 8, D.faulted ? 1 : 0); /* faultedDevicesMask */
            queue_event(1, 0xe, c, sizeof c);
            return true;
        }
        if (D.cur + 1 < (int)D.grid.x)
            start_block(D.cur + 1);
        else
            D.cur = (int)D.grid.x;
    }
    /* All blocks done: the kernel finished (a sync event; its ack ends the launch). */
    for (uint32_t i = 0; i < D.nwords; i++)
        D.gmem[i] = bitrev(D.gmem[i]);
    unsigned char c[48] = { 0 };
    put32(c, 0);
    put32(c + 4, D.host_tid);
    put64(c + 40, 1); /* gridId */
    queue_event(0, 0x3, c, sizeof c);
    D.finished_pending = true;
    return true;
}

static void *reader(void *arg)
{
    (void)arg;
    int fd = accept4(D.listen_fd, NULL, NULL, SOCK_CLOEXEC);
    pthread_mutex_lock(&D.mu);
    D.fd = fd;
    pthread_mutex_unlock(&D.mu);
    if (fd < 0)
        return NULL;
    for (;;) {
        struct msg m;
        if (read_all(fd, &m, sizeof m))
            break;
        unsigned char *payload = malloc(m.len ? m.len : 1);
        if (!payload || (m.len && read_all(fd, payload, m.len))) {
            free(payload);
            break;
        }
        pthread_mutex_lock(&D.mu);
        if (m.type == MSG_ELF) {
            free(D.elf);
            D.elf = payload;
            D.elf_size = m.len;
            /* As NVIDIA's driver does: the context's creation first, a sync event that holds
               the program until it is acknowledged; the ELF image comes after. */
            unsigned char c[20] = { 0 };
            put32(c, 0);             /* dev */
            put32(c + 4, m.tid);     /* tid */
            put64(c + 8, 0x1000);    /* context */
            queue_event(0, 0x7, c, sizeof c);
            D.pending = MSG_CTX;
        } else if (m.type == MSG_LAUNCH) {
            memcpy(D.kernel, m.name, sizeof D.kernel);
            D.kernel[sizeof D.kernel - 1] = 0;
            D.grid = (dim3_t){ m.grid, 1, 1 };
            D.block = (dim3_t){ m.block, 1, 1 };
            D.host_tid = m.tid;
            unsigned fb, ft;
            unsigned long long fpc;
            m.fault[sizeof m.fault - 1] = 0;
            D.fault_block = -1;
            if (sscanf(m.fault, "%u:%u:%llx", &fb, &ft, &fpc) == 3) {
                D.fault_block = (int)fb;
                D.fault_thread = ft;
                D.fault_pc = fpc;
            }
            free(D.gmem);
            D.gmem = (uint32_t *)payload;
            D.nwords = m.len / 4;
            if (m.grid > MAX_BLOCKS || m.block == 0 || m.block > NUM_WARPS * NUM_LANES
                || find_kernel(D.kernel, &D.entry, &D.size)) {
                fprintf(stderr, "cudbg double: cannot launch %s<<<%u,%u>>>\n", D.kernel, m.grid,
                        m.block);
                pthread_mutex_unlock(&D.mu);
                break;
            }
            unsigned char c[88] = { 0 };
            put32(c, 0);              /* dev */
            put32(c + 4, m.tid);      /* tid */
            put64(c + 8, 1);          /* gridId */
            put64(c + 16, 0x1000);    /* context */
            put64(c + 24, 0x2000);    /* module */
            put64(c + 32, 0x3000);    /* function */
            put64(c + 40, D.entry);   /* functionEntry */
            memcpy(c + 48, &D.grid, 12);
            memcpy(c + 60, &D.block, 12);
            put32(c + 72, 2);         /* CUDBG_KNL_TYPE_APPLICATION */
            queue_event(0, 0x2, c, sizeof c);
            D.pending = MSG_LAUNCH;
        } else {
            free(payload);
        }
        pthread_mutex_unlock(&D.mu);
        notify();
    }
    return NULL;
}

/* ---- the API table ---- */
static uint32_t initialize(void)
{
    pthread_mutex_lock(&D.mu);
    if (D.initialized || cudbgApiClientPid == 0) {
        pthread_mutex_unlock(&D.mu);
        return E_INITIALIZATION_FAILURE;
    }
    socket_path(&D.path, cudbgApiClientPid, cudbgSessionId);
    unlink(D.path.sun_path);
    D.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (D.listen_fd < 0 || bind(D.listen_fd, (struct sockaddr *)&D.path, sizeof D.path)
        || listen(D.listen_fd, 1)
        || pthread_create(&D.reader, NULL, reader, NULL)) {
        pthread_mutex_unlock(&D.mu);
        return E_INITIALIZATION_FAILURE;
    }
    D.initialized = true;
    pthread_mutex_unlock(&D.mu);
    return OK;
}

static uint32_t finalize(void)
{
    pthread_mutex_lock(&D.mu);
    if (D.fd >= 0)
        shutdown(D.fd, SHUT_RDWR);
    if (D.listen_fd >= 0)
        shutdown(D.listen_fd, SHUT_RDWR);
    unlink(D.path.sun_path);
    D.initialized = false;
    pthread_mutex_unlock(&D.mu);
    return OK;
}

#define CHECK_DEV(dev)                                                                         \
    do {                                                                                       \
        if (!D.initialized)                                                                    \
            return E_UNINITIALIZED;                                                            \
        if ((dev) != 0)                                                                        \
            return E_INVALID_DEVICE;                                                           \
    } while (0)

/* A valid warp of the resident block (mutex held). */
static uint32_t check_warp(uint32_t dev, uint32_t sm, uint32_t wp)
{
    if (!D.initialized)
        return E_UNINITIALIZED;
    if (dev != 0)
        return E_INVALID_DEVICE;
    if (sm >= NUM_SMS)
        return E_INVALID_SM;
    if (!D.launched || (int)sm != D.cur || wp >= NUM_WARPS || D.exited[wp])
        return E_INVALID_WARP;
    return OK;
}

#define LOCKED(expr)                                                                           \
    do {                                                                                       \
        pthread_mutex_lock(&D.mu);                                                             \
        uint32_t r_ = (expr);                                                                  \
        pthread_mutex_unlock(&D.mu);                                                           \
        return r_;                                                                             \
    } while (0)

static uint32_t suspend_device(uint32_t dev) { CHECK_DEV(dev); return OK; }

static uint32_t resume_device_locked(uint32_t dev)
{
    CHECK_DEV(dev);
    if (!D.launched || D.cur >= (int)D.grid.x)
        return OK;
    return run_device() ? 1000 : OK;
}

static uint32_t resume_device(uint32_t dev)
{
    pthread_mutex_lock(&D.mu);
    uint32_t r = resume_device_locked(dev);
    pthread_mutex_unlock(&D.mu);
    if (r == 1000) {
        notify();
        r = OK;
    }
    return r;
}

static uint32_t read_thread_idx(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln, dim3_t *t)
{
    pthread_mutex_lock(&D.mu);
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK && ln >= NUM_LANES)
        r = E_INVALID_LANE;
    if (r == OK && t)
        *t = (dim3_t){ wp * NUM_LANES + ln, 0, 0 };
    pthread_mutex_unlock(&D.mu);
    return r;
}

static uint32_t warp_mask(uint32_t dev, uint32_t sm, uint64_t *mask, bool broken)
{
    if (!D.initialized)
        return E_UNINITIALIZED;
    if (dev != 0)
        return E_INVALID_DEVICE;
    if (sm >= NUM_SMS)
        return E_INVALID_SM;
    uint64_t m = 0;
    if (D.launched && (int)sm == D.cur)
        for (int w = 0; w < NUM_WARPS; w++)
            if (!D.exited[w] && (!broken || D.broken[w]))
                m |= 1ull << w;
    *mask = m;
    return OK;
}

static uint32_t read_broken_warps(uint32_t dev, uint32_t sm, uint64_t *m)
{
    LOCKED(m ? warp_mask(dev, sm, m, true) : E_INVALID_ARGS);
}

static uint32_t read_valid_warps(uint32_t dev, uint32_t sm, uint64_t *m)
{
    LOCKED(m ? warp_mask(dev, sm, m, false) : E_INVALID_ARGS);
}

static uint32_t lanes(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t *m)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK) {
        uint32_t threads = D.block.x * D.block.y * D.block.z;
        uint32_t n = threads - wp * NUM_LANES;
        *m = n >= 32 ? 0xffffffffu : (1u << n) - 1;
    }
    return r;
}

static uint32_t read_valid_lanes(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t *m)
{
    LOCKED(m ? lanes(dev, sm, wp, m) : E_INVALID_ARGS);
}

static uint32_t shared_mem(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t addr, void *buf,
                           uint32_t sz)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r != OK)
        return r;
    if (addr > SHARED_SIZE || sz > SHARED_SIZE - addr)
        return E_INVALID_MEMORY_ACCESS;
    unsigned char shared[SHARED_SIZE] = { 0 };
    uint32_t per_block = D.block.x * D.block.y * D.block.z;
    for (uint32_t i = 0; i < per_block && SHARED_DATA + 4 * (i + 1) <= SHARED_SIZE; i++) {
        uint32_t k = (uint32_t)D.cur * per_block + i;
        uint32_t v = k < D.nwords ? D.gmem[k] : 0;
        memcpy(shared + SHARED_DATA + 4 * i, &v, 4);
    }
    memcpy(buf, shared + addr, sz);
    return OK;
}

static uint32_t read_shared_memory(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t addr,
                                   void *buf, uint32_t sz)
{
    LOCKED(buf ? shared_mem(dev, sm, wp, addr, buf, sz) : E_INVALID_ARGS);
}

static uint32_t local_mem(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln, uint64_t addr,
                          void *buf, uint32_t sz)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r != OK)
        return r;
    if (ln >= NUM_LANES)
        return E_INVALID_LANE;
    if (addr < LOCAL_BASE || addr - LOCAL_BASE > LOCAL_SIZE || sz > LOCAL_SIZE - (addr - LOCAL_BASE))
        return E_INVALID_MEMORY_ACCESS;
    uint32_t words[LOCAL_SIZE / 4];
    uint32_t t = wp * NUM_LANES + ln;
    for (uint32_t k = 0; k < LOCAL_SIZE / 4; k++)
        words[k] = (t << 8) | k;
    memcpy(buf, (unsigned char *)words + (addr - LOCAL_BASE), sz);
    return OK;
}

static uint32_t read_local_memory(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln,
                                  uint64_t addr, void *buf, uint32_t sz)
{
    LOCKED(buf ? local_mem(dev, sm, wp, ln, addr, buf, sz) : E_INVALID_ARGS);
}

static uint32_t param_mem(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t addr, void *buf,
                          uint32_t sz)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r != OK)
        return r;
    uint64_t p = GLOBAL_BASE;
    if (addr > 8 || sz > 8 - addr)
        return E_INVALID_MEMORY_ACCESS;
    memcpy(buf, (unsigned char *)&p + addr, sz);
    return OK;
}

static uint32_t read_param_memory(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t addr,
                                  void *buf, uint32_t sz)
{
    LOCKED(buf ? param_mem(dev, sm, wp, addr, buf, sz) : E_INVALID_ARGS);
}

static uint32_t reg(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln, uint32_t regno,
                    uint32_t *val)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r != OK)
        return r;
    if (ln >= NUM_LANES)
        return E_INVALID_LANE;
    uint64_t data = GLOBAL_BASE;
    uint64_t idata = data + (uint64_t)D.cur * D.block.x * 4;
    switch (regno) {
    case 0: *val = (uint32_t)data; break;
    case 1: *val = (uint32_t)LOCAL_BASE; break;
    case 2: *val = (uint32_t)(data >> 32); break;
    case 3: *val = wp * NUM_LANES + ln; break;
    case 4: *val = (uint32_t)idata; break;
    case 5: *val = (uint32_t)(idata >> 32); break;
    default: *val = 0; break;
    }
    return OK;
}

static uint32_t read_register(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln,
                              uint32_t regno, uint32_t *val)
{
    LOCKED(val ? reg(dev, sm, wp, ln, regno, val) : E_INVALID_ARGS);
}

static uint32_t pc_of(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln, uint64_t *pc)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK && ln >= NUM_LANES)
        r = E_INVALID_LANE;
    if (r == OK)
        *pc = D.pc[wp];
    return r;
}

static uint32_t read_pc(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln, uint64_t *pc)
{
    LOCKED(pc ? pc_of(dev, sm, wp, ln, pc) : E_INVALID_ARGS);
}

static uint32_t dims(uint32_t dev, uint32_t sm, uint32_t wp, dim3_t *d, int which)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK)
        *d = which == 0 ? D.block : which == 1 ? D.grid : (dim3_t){ (uint32_t)D.cur, 0, 0 };
    return r;
}

static uint32_t get_block_dim(uint32_t dev, uint32_t sm, uint32_t wp, dim3_t *d)
{
    LOCKED(d ? dims(dev, sm, wp, d, 0) : E_INVALID_ARGS);
}

static uint32_t get_grid_dim(uint32_t dev, uint32_t sm, uint32_t wp, dim3_t *d)
{
    LOCKED(d ? dims(dev, sm, wp, d, 1) : E_INVALID_ARGS);
}

static uint32_t read_block_idx(uint32_t dev, uint32_t sm, uint32_t wp, dim3_t *d)
{
    LOCKED(d ? dims(dev, sm, wp, d, 2) : E_INVALID_ARGS);
}

static uint32_t grid_id(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t *g)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK)
        *g = 1;
    return r;
}

static uint32_t read_grid_id(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t *g)
{
    LOCKED(g ? grid_id(dev, sm, wp, g) : E_INVALID_ARGS);
}

static uint32_t lane_exception(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln,
                               uint32_t *e)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK && ln >= NUM_LANES)
        r = E_INVALID_LANE;
    if (r == OK)
        *e = D.exception[wp][ln];
    return r;
}

static uint32_t read_lane_exception(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln,
                                    uint32_t *e)
{
    LOCKED(e ? lane_exception(dev, sm, wp, ln, e) : E_INVALID_ARGS);
}

/* The faulting instruction of a warp with an exception (readErrorPC). */
static uint32_t read_error_pc(uint32_t dev, uint32_t sm, uint32_t wp, uint64_t *pc, bool *valid)
{
    if (!pc || !valid)
        return E_INVALID_ARGS;
    pthread_mutex_lock(&D.mu);
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK) {
        bool any = false;
        for (uint32_t ln = 0; ln < NUM_LANES; ln++)
            if (D.exception[wp][ln])
                any = true;
        *valid = any;
        *pc = any ? D.fault_pc : 0;
    }
    pthread_mutex_unlock(&D.mu);
    return r;
}

/* No device function calls in the scripted kernel: depth 0, no return addresses. */
static uint32_t call_depth(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln, uint32_t *d)
{
    uint32_t r = check_warp(dev, sm, wp);
    if (r == OK && ln >= NUM_LANES)
        r = E_INVALID_LANE;
    if (r == OK)
        *d = 0;
    return r;
}

static uint32_t read_call_depth(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t ln,
                                uint32_t *d)
{
    LOCKED(d ? call_depth(dev, sm, wp, ln, d) : E_INVALID_ARGS);
}

static uint32_t read_virtual_return_address(uint32_t dev, uint32_t sm, uint32_t wp,
                                            uint32_t ln, uint32_t level, uint64_t *ra)
{
    (void)dev; (void)sm; (void)wp; (void)ln; (void)level; (void)ra;
    return 0x1b; /* CUDBG_ERROR_INVALID_CALL_LEVEL */
}

static uint32_t copy_str(uint32_t dev, char *buf, uint32_t sz, const char *s)
{
    CHECK_DEV(dev);
    if (!buf || sz <= strlen(s))
        return E_INVALID_ARGS;
    strcpy(buf, s);
    return OK;
}

static uint32_t get_device_type(uint32_t dev, char *buf, uint32_t sz)
{
    return copy_str(dev, buf, sz, "GH100");
}

static uint32_t get_sm_type(uint32_t dev, char *buf, uint32_t sz)
{
    return copy_str(dev, buf, sz, "sm_90");
}

static uint32_t get_device_name(uint32_t dev, char *buf, uint32_t sz)
{
    return copy_str(dev, buf, sz, "CUDBG test double");
}

static uint32_t get_num_devices(uint32_t *n)
{
    if (!D.initialized)
        return E_UNINITIALIZED;
    *n = 1;
    return OK;
}

static uint32_t num(uint32_t dev, uint32_t *n, uint32_t v)
{
    CHECK_DEV(dev);
    if (!n)
        return E_INVALID_ARGS;
    *n = v;
    return OK;
}

static uint32_t get_num_sms(uint32_t dev, uint32_t *n) { return num(dev, n, NUM_SMS); }
static uint32_t get_num_warps(uint32_t dev, uint32_t *n) { return num(dev, n, NUM_WARPS); }
static uint32_t get_num_lanes(uint32_t dev, uint32_t *n) { return num(dev, n, NUM_LANES); }
static uint32_t get_num_registers(uint32_t dev, uint32_t *n) { return num(dev, n, 255); }

static uint32_t get_pci(uint32_t dev, uint32_t *bus, uint32_t *devid)
{
    CHECK_DEV(dev);
    *bus = 0x45;
    *devid = 0;
    return OK;
}

static uint32_t bp_locked(uint32_t dev, uint64_t addr, bool set)
{
    CHECK_DEV(dev);
    for (int i = 0; i < D.nbp; i++)
        if (D.bps[i] == addr) {
            if (!set)
                D.bps[i] = D.bps[--D.nbp];
            return OK;
        }
    if (set) {
        if (D.nbp == 16)
            return E_INTERNAL;
        D.bps[D.nbp++] = addr;
    }
    return OK;
}

static uint32_t set_breakpoint(uint32_t dev, uint64_t addr) { LOCKED(bp_locked(dev, addr, true)); }
static uint32_t unset_breakpoint(uint32_t dev, uint64_t addr) { LOCKED(bp_locked(dev, addr, false)); }

static uint32_t set_callback(callback_t cb)
{
    pthread_mutex_lock(&D.mu);
    D.cb = cb;
    pthread_mutex_unlock(&D.mu);
    return OK;
}

static uint32_t next_event(uint32_t queue, unsigned char *ev)
{
    if (!ev)
        return E_INVALID_ARGS;
    pthread_mutex_lock(&D.mu);
    uint32_t r = E_NO_EVENT;
    for (int i = 0; i < D.qn; i++)
        if (D.q[i].queue == queue) {
            memcpy(ev, D.q[i].raw, sizeof D.q[i].raw);
            memmove(&D.q[i], &D.q[i + 1], (size_t)(D.qn - i - 1) * sizeof D.q[0]);
            D.qn--;
            r = OK;
            break;
        }
    pthread_mutex_unlock(&D.mu);
    return r;
}

static uint32_t acknowledge_sync_events(void)
{
    pthread_mutex_lock(&D.mu);
    uint32_t r = OK;
    bool queued = false;
    struct msg m = { .type = MSG_ACK };
    if (D.pending == MSG_CTX) {
        unsigned char c[36] = { 0 };
        put32(c, 0);             /* dev */
        put64(c + 4, 0x1000);    /* context */
        put64(c + 12, 0x2000);   /* module */
        put64(c + 20, D.elf_size); /* size */
        put64(c + 28, 1);        /* handle */
        queue_event(0, 0x1, c, sizeof c);
        D.pending = MSG_ELF;
        queued = true;
    } else if (D.pending) {
        if (write_all(D.fd, &m, sizeof m))
            r = E_COMMUNICATION_FAILURE;
        if (D.pending == MSG_LAUNCH) {
            D.launched = true;
            start_block(0);
            queued = run_device();
        }
        D.pending = 0;
    } else if (D.finished_pending) {
        struct msg done = { .type = MSG_DONE, .len = D.nwords * 4 };
        if (write_all(D.fd, &done, sizeof done) || write_all(D.fd, D.gmem, done.len))
            r = E_COMMUNICATION_FAILURE;
        D.finished_pending = false;
        D.launched = false;
    }
    pthread_mutex_unlock(&D.mu);
    if (queued)
        notify();
    return r;
}

static uint32_t get_elf_image(uint32_t dev, uint64_t handle, uint32_t type, void *buf,
                              uint64_t size)
{
    (void)type;
    pthread_mutex_lock(&D.mu);
    uint32_t r = OK;
    if (dev != 0)
        r = E_INVALID_DEVICE;
    else if (handle != 1 || !D.elf || !buf || size != D.elf_size)
        r = E_INVALID_ARGS;
    else
        memcpy(buf, D.elf, size);
    pthread_mutex_unlock(&D.mu);
    return r;
}

static uint32_t read_global_memory(uint64_t addr, void *buf, uint32_t sz)
{
    pthread_mutex_lock(&D.mu);
    uint32_t r = OK;
    uint64_t len = (uint64_t)D.nwords * 4;
    if (!D.launched || !buf || addr < GLOBAL_BASE || addr - GLOBAL_BASE > len
        || sz > len - (addr - GLOBAL_BASE))
        r = E_INVALID_MEMORY_ACCESS;
    else
        memcpy(buf, (unsigned char *)D.gmem + (addr - GLOBAL_BASE), sz);
    pthread_mutex_unlock(&D.mu);
    return r;
}

static uint32_t step_warp(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t lane_hint,
                          uint32_t nsteps, uint32_t flags, uint64_t *mask)
{
    (void)lane_hint;
    (void)flags;
    uint32_t r = check_warp(dev, sm, wp);
    if (r != OK)
        return r;
    D.pc[wp] += 0x10ull * nsteps;
    if (D.pc[wp] >= D.entry + D.size)
        D.exited[wp] = true;
    if (mask)
        *mask = 1ull << wp;
    return OK;
}

static uint32_t single_step_warp(uint32_t dev, uint32_t sm, uint32_t wp, uint32_t lane_hint,
                                 uint32_t nsteps, uint32_t flags, uint64_t *mask)
{
    LOCKED(step_warp(dev, sm, wp, lane_hint, nsteps, flags, mask));
}

static uint32_t get_capabilities(uint32_t *caps)
{
    if (!caps)
        return E_INVALID_ARGS;
    *caps = (1u << 1) | (1u << 3); /* SUSPEND_EVENTS | NO_CONTEXT_PUSH_POP_EVENTS */
    return OK;
}

/* Slot indices of CUDBGAPI_st at API 12.9 revision 156. */
static void *table[146];

static void fill_table(void)
{
    table[0] = (void *)initialize;
    table[1] = (void *)finalize;
    table[2] = (void *)suspend_device;
    table[3] = (void *)resume_device;
    table[9] = (void *)read_thread_idx;
    table[10] = (void *)read_broken_warps;
    table[11] = (void *)read_valid_warps;
    table[12] = (void *)read_valid_lanes;
    table[13] = (void *)read_valid_lanes; /* active lanes: no divergence */
    table[17] = (void *)read_param_memory;
    table[18] = (void *)read_shared_memory;
    table[19] = (void *)read_local_memory;
    table[20] = (void *)read_register;
    table[21] = (void *)read_pc;
    table[22] = (void *)read_pc; /* virtual PC */
    table[30] = (void *)get_block_dim;
    table[33] = (void *)get_device_type;
    table[34] = (void *)get_sm_type;
    table[35] = (void *)get_num_devices;
    table[36] = (void *)get_num_sms;
    table[37] = (void *)get_num_warps;
    table[38] = (void *)get_num_lanes;
    table[39] = (void *)get_num_registers;
    table[50] = (void *)read_lane_exception;
    table[60] = (void *)set_breakpoint;
    table[61] = (void *)unset_breakpoint;
    table[65] = (void *)read_block_idx;
    table[66] = (void *)get_grid_dim;
    table[67] = (void *)read_call_depth;
    table[69] = (void *)read_virtual_return_address;
    table[73] = (void *)set_callback;
    table[79] = (void *)acknowledge_sync_events;
    table[87] = (void *)read_grid_id;
    table[90] = (void *)get_pci;
    table[93] = (void *)read_error_pc;
    table[94] = (void *)next_event;
    table[95] = (void *)get_elf_image;
    table[101] = (void *)read_global_memory;
    table[111] = (void *)get_device_name;
    table[132] = (void *)single_step_warp;
    table[134] = (void *)get_capabilities;
}

static void driver_version(uint32_t *maj, uint32_t *min, uint32_t *rev)
{
    *maj = 12;
    *min = 9;
    *rev = 156;
    const char *v = getenv("COHORT_CUDBG_DOUBLE_VERSION");
    if (v)
        sscanf(v, "%u.%u.%u", maj, min, rev);
}

uint32_t cudbgGetAPIVersion(uint32_t *major, uint32_t *minor, uint32_t *rev)
{
    if (!major || !minor || !rev)
        return E_INVALID_ARGS;
    driver_version(major, minor, rev);
    return OK;
}

uint32_t cudbgGetAPI(uint32_t major, uint32_t minor, uint32_t rev, void *const **api)
{
    uint32_t dmaj, dmin, drev;
    driver_version(&dmaj, &dmin, &drev);
    if (!api)
        return E_INVALID_ARGS;
    if (major != dmaj || minor > dmin || (minor == dmin && rev > drev))
        return E_INCOMPATIBLE_API;
    fill_table();
    *api = table;
    return OK;
}
