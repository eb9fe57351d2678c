/* cohort's MPI call recorder (issue 20).
 *
 * A PMPI interposition library that `cohort launch` preloads into the ranks it launches
 * (`--no-mpi-recorder` turns it off). It is built at first use with the job's own `mpicc`
 * (cohort_launch::recorder) and needs no debug information in the MPI library.
 *
 * It keeps, in memory only, in the global `cohort_mpi_recorder` the agent reads through the
 * library's ELF symbol: the blocking call the rank is in (call, peer, tag, communicator,
 * count, datatype, the request list of Wait/Waitall/Waitany), the last point-to-point calls,
 * and a count of calls per call site (return address). Peers and roots are world ranks.
 *
 * Fortran programs call the Fortran bindings (`mpi_recv_`), which Open MPI implements on
 * PMPI_Recv (so the C wrappers below never see them) and MPICH on MPI_Recv (seen, but from
 * inside the binding): the Fortran wrappers at the end record those calls at the user's call
 * site and call the binding found after this library (dlsym RTLD_NEXT).
 *
 * The layout is fixed (fixed-width fields, no implicit padding, checked below); the reader in
 * agentd/src/mpirec.rs decodes it by offset and refuses another magic, version or size. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REC_MAGIC 0x3152434d54524843ULL /* "CHRTMCR1" */
#define REC_VERSION 2
#define REC_NREQ 16
#define REC_NRECENT 16
#define REC_NSITES 256
#define REC_NAME 32
#define REC_NMEMBERS 64

/* Peers and tags: wildcards and absent values. */
#define REC_ANY (-1)
#define REC_NONE (-2)
#define REC_PROC_NULL (-3)

/* The calls, by number: the same table is in agentd/src/mpirec.rs (CALLS). */
enum {
    C_NONE,
    C_SEND,
    C_SSEND,
    C_RECV,
    C_SENDRECV,
    C_PROBE,
    C_WAIT,
    C_WAITALL,
    C_WAITANY,
    C_BARRIER,
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_ALLTOALL,
    C_GATHER,
    C_SCATTER,
    C_ALLGATHER,
    C_ISEND,
    C_IRECV,
    C_FINALIZE,
};

struct rec_req {
    int32_t kind; /* 0 unknown, 1 send, 2 receive */
    int32_t peer;
    int32_t tag;
    int32_t done;
};

struct rec_call {
    int32_t call; /* 0: in no blocking call */
    int32_t peer; /* send: destination, receive: source */
    int32_t tag;
    int32_t peer2; /* MPI_Sendrecv: the source (peer is the destination) */
    int32_t tag2;
    int32_t root;
    int64_t count;
    uint64_t site;
    int32_t comm_size;
    int32_t nreq;
    char datatype[REC_NAME];
    char comm[REC_NAME];
    struct rec_req req[REC_NREQ];
};

struct rec_p2p {
    uint64_t site;
    int32_t call;
    int32_t peer;
    int32_t tag;
    int32_t pad;
};

struct rec_site {
    uint64_t site;
    uint64_t count;
    int32_t call;
    int32_t pad;
};

/* The members of the current call's communicator, as world ranks, for any communicator but
   MPI_COMM_WORLD (`hash` 0): first + i * stride for i < comm_size when they are evenly
   spaced (stride != 0), else the first REC_NMEMBERS of them listed. */
struct rec_comm {
    uint64_t hash; /* FNV-1a of the members in communicator order; 0: none recorded */
    int32_t first;
    int32_t stride;
    int32_t nlisted;
    int32_t pad;
    int32_t list[REC_NMEMBERS];
};

struct rec {
    uint64_t magic;
    uint32_t version;
    uint32_t size_of;
    int32_t rank;
    int32_t size;
    int32_t finalized;
    int32_t nsites;
    uint64_t calls;
    uint64_t dropped_sites;
    struct rec_call cur;
    uint64_t nrecent;
    struct rec_p2p recent[REC_NRECENT];
    struct rec_site sites[REC_NSITES];
    struct rec_comm cur_comm;
};

_Static_assert(sizeof(struct rec_req) == 16, "rec_req layout");
_Static_assert(sizeof(struct rec_call) == 368, "rec_call layout");
_Static_assert(sizeof(struct rec_p2p) == 24, "rec_p2p layout");
_Static_assert(sizeof(struct rec_site) == 24, "rec_site layout");
_Static_assert(offsetof(struct rec, cur) == 48, "rec layout");
_Static_assert(offsetof(struct rec, recent) == 424, "rec layout");
_Static_assert(sizeof(struct rec_comm) == 280, "rec_comm layout");
_Static_assert(offsetof(struct rec, cur_comm) == 6952, "rec layout");
_Static_assert(sizeof(struct rec) == 7232, "rec layout");

__attribute__((visibility("default"), used)) struct rec cohort_mpi_recorder = {
    .magic = REC_MAGIC,
    .version = REC_VERSION,
    .size_of = sizeof(struct rec),
    .rank = -1,
    .size = 0,
};

#define R cohort_mpi_recorder

/* Nested MPI calls (a binding calling another) are not recorded again (per thread; with
   several threads in MPI at once, the call recorded is the last one entered). */
static __thread int depth;
static MPI_Group world_group = MPI_GROUP_NULL;

/* Requests of MPI_Isend/MPI_Irecv, by handle: what a Wait waits for. */
#define REQS 1024
static struct {
    uint64_t key;
    int32_t kind, peer, tag;
} reqs[REQS];

/* The members of a communicator, computed once and kept as an attribute of it (freed with
   it). */
static int members_key = MPI_KEYVAL_INVALID;

static int free_members(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm;
    (void)key;
    (void)extra;
    free(val);
    return MPI_SUCCESS;
}

static const struct rec_comm *members_of(MPI_Comm comm)
{
    struct rec_comm *m = NULL;
    int flag = 0;
    if (members_key == MPI_KEYVAL_INVALID || world_group == MPI_GROUP_NULL)
        return NULL;
    if (PMPI_Comm_get_attr(comm, members_key, &m, &flag) == MPI_SUCCESS && flag)
        return m;
    int n = 0;
    MPI_Group g;
    if (PMPI_Comm_size(comm, &n) != MPI_SUCCESS || n <= 0 ||
        PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
        return NULL;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    m = calloc(1, sizeof(*m));
    if (!in || !out || !m) {
        free(in);
        free(out);
        free(m);
        PMPI_Group_free(&g);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (PMPI_Group_translate_ranks(g, n, in, world_group, out) != MPI_SUCCESS) {
        free(in);
        free(out);
        free(m);
        PMPI_Group_free(&g);
        return NULL;
    }
    PMPI_Group_free(&g);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < n; i++) {
        uint32_t v = (uint32_t)out[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 0x100000001b3ULL;
        }
    }
    m->hash = h ? h : 1;
    m->first = out[0];
    m->stride = n > 1 ? out[1] - out[0] : 1;
    for (int i = 2; i < n && m->stride != 0; i++)
        if (out[i] - out[i - 1] != m->stride)
            m->stride = 0;
    m->nlisted = n < REC_NMEMBERS ? n : REC_NMEMBERS;
    memcpy(m->list, out, sizeof(int) * (size_t)m->nlisted);
    free(in);
    free(out);
    if (PMPI_Comm_set_attr(comm, members_key, m) != MPI_SUCCESS) {
        free(m);
        return NULL;
    }
    return m;
}

static uint64_t req_key(const MPI_Request *r)
{
    uint64_t k = 0;
    memcpy(&k, r, sizeof(*r) < sizeof(k) ? sizeof(*r) : sizeof(k));
    return k;
}

static int slot_of(uint64_t k)
{
    return (int)((k ^ (k >> 17) ^ (k >> 31)) % REQS);
}

static int world_rank_of(int peer, MPI_Comm comm)
{
    if (peer == MPI_ANY_SOURCE)
        return REC_ANY;
    if (peer == MPI_PROC_NULL)
        return REC_PROC_NULL;
    if (peer < 0)
        return REC_NONE;
    if (comm == MPI_COMM_WORLD)
        return peer;
    MPI_Group g;
    int w = REC_NONE;
    if (world_group == MPI_GROUP_NULL || PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
        return REC_NONE;
    if (PMPI_Group_translate_ranks(g, 1, &peer, world_group, &w) != MPI_SUCCESS)
        w = REC_NONE;
    PMPI_Group_free(&g);
    return w;
}

static int tag_of(int tag)
{
    return tag == MPI_ANY_TAG ? REC_ANY : tag;
}

static void count_site(int call, uint64_t site)
{
    R.calls++;
    uint64_t h = (site >> 2) % REC_NSITES;
    for (int i = 0; i < REC_NSITES; i++) {
        struct rec_site *s = &R.sites[(h + i) % REC_NSITES];
        if (s->count == 0) {
            s->site = site;
            s->call = call;
            s->count = 1;
            R.nsites++;
            return;
        }
        if (s->site == site && s->call == call) {
            s->count++;
            return;
        }
    }
    R.dropped_sites++;
}

static void note_p2p(int call, uint64_t site, int peer, int tag)
{
    struct rec_p2p *p = &R.recent[R.nrecent % REC_NRECENT];
    p->site = site;
    p->call = call;
    p->peer = peer;
    p->tag = tag;
    R.nrecent++;
}

/* Entering a call: counted, and (blocking) recorded as the call the rank is in. */
static int enter(int call, void *ret, int blocking, MPI_Comm comm, MPI_Datatype dt,
                 int64_t count)
{
    if (depth++ > 0)
        return 0;
    uint64_t site = (uint64_t)(uintptr_t)ret;
    count_site(call, site);
    if (!blocking)
        return 1;
    struct rec_call *c = &R.cur;
    __atomic_store_n(&c->call, 0, __ATOMIC_RELEASE);
    c->peer = c->peer2 = c->root = REC_NONE;
    c->tag = c->tag2 = REC_NONE;
    c->count = count;
    c->site = site;
    c->nreq = 0;
    c->comm_size = 0;
    c->datatype[0] = c->comm[0] = 0;
    if (dt != MPI_DATATYPE_NULL) {
        int len = 0;
        char name[MPI_MAX_OBJECT_NAME];
        if (PMPI_Type_get_name(dt, name, &len) == MPI_SUCCESS) {
            strncpy(c->datatype, name, REC_NAME - 1);
            c->datatype[REC_NAME - 1] = 0;
        }
    }
    if (comm != MPI_COMM_NULL) {
        int len = 0;
        char name[MPI_MAX_OBJECT_NAME];
        if (PMPI_Comm_get_name(comm, name, &len) == MPI_SUCCESS) {
            strncpy(c->comm, name, REC_NAME - 1);
            c->comm[REC_NAME - 1] = 0;
        }
        PMPI_Comm_size(comm, &c->comm_size);
    }
    R.cur_comm.hash = 0;
    if (comm != MPI_COMM_NULL && comm != MPI_COMM_WORLD) {
        const struct rec_comm *m = members_of(comm);
        if (m)
            R.cur_comm = *m;
    }
    return 1;
}

static void in_call(int call)
{
    __atomic_store_n(&R.cur.call, call, __ATOMIC_RELEASE);
}

static void leave(int recorded)
{
    if (recorded)
        __atomic_store_n(&R.cur.call, 0, __ATOMIC_RELEASE);
    depth--;
}

static void set_p2p(int call, int peer, int tag, MPI_Comm comm, int recorded, int is_send)
{
    int w = world_rank_of(peer, comm);
    if (recorded) {
        R.cur.peer = w;
        R.cur.tag = tag_of(tag);
        if (is_send)
            note_p2p(call, R.cur.site, w, tag_of(tag));
    }
}

static void start(void)
{
    if (world_group != MPI_GROUP_NULL)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &R.size);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_members, &members_key, NULL);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start();
    return rc;
}

int MPI_Finalize(void)
{
    int r = enter(C_FINALIZE, __builtin_return_address(0), 1, MPI_COMM_NULL,
                  MPI_DATATYPE_NULL, 0);
    R.finalized = 1;
    if (r)
        in_call(C_FINALIZE);
    int rc = PMPI_Finalize();
    leave(r);
    return rc;
}

#define SEND_LIKE(NAME, CALL)                                                                  \
    int NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)    \
    {                                                                                          \
        int r = enter(CALL, __builtin_return_address(0), 1, comm, dt, count);                   \
        set_p2p(CALL, dest, tag, comm, r, 1);                                                  \
        if (r)                                                                                 \
            in_call(CALL);                                                                     \
        int rc = P##NAME(buf, count, dt, dest, tag, comm);                                     \
        leave(r);                                                                              \
        return rc;                                                                             \
    }

SEND_LIKE(MPI_Send, C_SEND)
SEND_LIKE(MPI_Ssend, C_SSEND)

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    int r = enter(C_RECV, __builtin_return_address(0), 1, comm, dt, count);
    set_p2p(C_RECV, source, tag, comm, r, 0);
    if (r)
        in_call(C_RECV);
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, status);
    leave(r);
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int r = enter(C_PROBE, __builtin_return_address(0), 1, comm, MPI_DATATYPE_NULL, 0);
    set_p2p(C_PROBE, source, tag, comm, r, 0);
    if (r)
        in_call(C_PROBE);
    int rc = PMPI_Probe(source, tag, comm, status);
    leave(r);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    int r = enter(C_SENDRECV, __builtin_return_address(0), 1, comm, sdt, scount);
    set_p2p(C_SENDRECV, dest, stag, comm, r, 1);
    if (r) {
        R.cur.peer2 = world_rank_of(source, comm);
        R.cur.tag2 = tag_of(rtag);
        in_call(C_SENDRECV);
    }
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                           comm, status);
    leave(r);
    return rc;
}

static void remember_request(MPI_Request *req, int kind, int peer, int tag)
{
    uint64_t k = req_key(req);
    int s = slot_of(k);
    reqs[s].key = k;
    reqs[s].kind = kind;
    reqs[s].peer = peer;
    reqs[s].tag = tag;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    int r = enter(C_ISEND, __builtin_return_address(0), 0, comm, dt, count);
    int rc = PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    if (r && rc == MPI_SUCCESS) {
        int w = world_rank_of(dest, comm);
        remember_request(req, 1, w, tag_of(tag));
        note_p2p(C_ISEND, (uint64_t)(uintptr_t)__builtin_return_address(0), w, tag_of(tag));
    }
    leave(0);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    int r = enter(C_IRECV, __builtin_return_address(0), 0, comm, dt, count);
    int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    if (r && rc == MPI_SUCCESS)
        remember_request(req, 2, world_rank_of(source, comm), tag_of(tag));
    leave(0);
    return rc;
}

static void note_requests(int n, MPI_Request *reqv)
{
    int k = 0;
    for (int i = 0; i < n && k < REC_NREQ; i++) {
        struct rec_req *q = &R.cur.req[k++];
        q->kind = 0;
        q->peer = q->tag = REC_NONE;
        q->done = reqv[i] == MPI_REQUEST_NULL;
        if (q->done)
            continue;
        uint64_t key = req_key(&reqv[i]);
        int s = slot_of(key);
        if (reqs[s].key == key && reqs[s].kind != 0) {
            q->kind = reqs[s].kind;
            q->peer = reqs[s].peer;
            q->tag = reqs[s].tag;
        }
    }
    R.cur.nreq = k;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    int r = enter(C_WAIT, __builtin_return_address(0), 1, MPI_COMM_NULL, MPI_DATATYPE_NULL, 1);
    if (r) {
        note_requests(1, req);
        in_call(C_WAIT);
    }
    int rc = PMPI_Wait(req, status);
    leave(r);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqv[], MPI_Status statuses[])
{
    int r = enter(C_WAITALL, __builtin_return_address(0), 1, MPI_COMM_NULL, MPI_DATATYPE_NULL,
                  n);
    if (r) {
        note_requests(n, reqv);
        in_call(C_WAITALL);
    }
    int rc = PMPI_Waitall(n, reqv, statuses);
    leave(r);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqv[], int *index, MPI_Status *status)
{
    int r = enter(C_WAITANY, __builtin_return_address(0), 1, MPI_COMM_NULL, MPI_DATATYPE_NULL,
                  n);
    if (r) {
        note_requests(n, reqv);
        in_call(C_WAITANY);
    }
    int rc = PMPI_Waitany(n, reqv, index, status);
    leave(r);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    int r = enter(C_BARRIER, __builtin_return_address(0), 1, comm, MPI_DATATYPE_NULL, 0);
    if (r)
        in_call(C_BARRIER);
    int rc = PMPI_Barrier(comm);
    leave(r);
    return rc;
}

static void set_root(int root, MPI_Comm comm, int r)
{
    if (r)
        R.cur.root = world_rank_of(root, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int r = enter(C_BCAST, __builtin_return_address(0), 1, comm, dt, count);
    set_root(root, comm, r);
    if (r)
        in_call(C_BCAST);
    int rc = PMPI_Bcast(buf, count, dt, root, comm);
    leave(r);
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    int r = enter(C_REDUCE, __builtin_return_address(0), 1, comm, dt, count);
    set_root(root, comm, r);
    if (r)
        in_call(C_REDUCE);
    int rc = PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    leave(r);
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    int r = enter(C_ALLREDUCE, __builtin_return_address(0), 1, comm, dt, count);
    if (r)
        in_call(C_ALLREDUCE);
    int rc = PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    leave(r);
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, MPI_Comm comm)
{
    int r = enter(C_ALLTOALL, __builtin_return_address(0), 1, comm, sdt, scount);
    if (r)
        in_call(C_ALLTOALL);
    int rc = PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    leave(r);
    return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    int r = enter(C_ALLGATHER, __builtin_return_address(0), 1, comm, sdt, scount);
    if (r)
        in_call(C_ALLGATHER);
    int rc = PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    leave(r);
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int r = enter(C_GATHER, __builtin_return_address(0), 1, comm, sdt, scount);
    set_root(root, comm, r);
    if (r)
        in_call(C_GATHER);
    int rc = PMPI_Gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    leave(r);
    return rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int r = enter(C_SCATTER, __builtin_return_address(0), 1, comm, rdt, rcount);
    set_root(root, comm, r);
    if (r)
        in_call(C_SCATTER);
    int rc = PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
    leave(r);
    return rc;
}

/* ---- Fortran bindings ----
   `use mpi` and `mpif.h` call `mpi_x_` (gfortran and flang); the `mpi_f08` module calls
   `mpi_x_f08_` (Open MPI) or `mpi_x_f08ts_` (MPICH, for calls with a buffer). Every argument
   is passed by reference (handles are integers, or `type(MPI_Comm)` and the like holding one;
   a buffer is an address or, for `f08ts`, a descriptor's: passed on untouched), and the f08
   bindings' optional `ierror` may be absent (NULL). Each wrapper records the call at its own
   return address (the program's call site) and calls the binding found after this library. */

typedef void (*fproc)();

/* The binding after this library's: the MPI library's own. */
static fproc next_binding(fproc *cache, const char *name)
{
    fproc f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (fproc)dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* A binding's error code, where one was given. */
static int fok(const MPI_Fint *ierr)
{
    return !ierr || *ierr == MPI_SUCCESS;
}

static void no_binding(MPI_Fint *ierr)
{
    if (ierr)
        *ierr = MPI_ERR_OTHER;
}

/* The three names of a binding, each calling IMPL with the binding after this library and
   the program's call site. PARAMS and ARGS are parenthesised lists. */
#define STRIP(...) __VA_ARGS__
#define ONE_NAME(NAME, IMPL, PARAMS, ARGS)                                                     \
    static fproc next_##NAME;                                                                  \
    void NAME(STRIP PARAMS)                                                                    \
    {                                                                                          \
        IMPL(next_binding(&next_##NAME, #NAME), __builtin_return_address(0), STRIP ARGS);      \
    }
#define F_NAMES(BASE, IMPL, PARAMS, ARGS)                                                      \
    ONE_NAME(BASE##_, IMPL, PARAMS, ARGS)                                                      \
    ONE_NAME(BASE##_f08_, IMPL, PARAMS, ARGS)                                                  \
    ONE_NAME(BASE##_f08ts_, IMPL, PARAMS, ARGS)

typedef MPI_Fint F;

static void f_init(fproc f, void *site, F *ierr)
{
    (void)site;
    if (!f) {
        no_binding(ierr);
        return;
    }
    ((void (*)(F *))f)(ierr);
    if (fok(ierr))
        start();
}
F_NAMES(mpi_init, f_init, (F * ierr), (ierr))

static void f_init_thread(fproc f, void *site, F *required, F *provided, F *ierr)
{
    (void)site;
    if (!f) {
        no_binding(ierr);
        return;
    }
    ((void (*)(F *, F *, F *))f)(required, provided, ierr);
    if (fok(ierr))
        start();
}
F_NAMES(mpi_init_thread, f_init_thread, (F * required, F * provided, F * ierr),
        (required, provided, ierr))

static void f_finalize(fproc f, void *site, F *ierr)
{
    int r = enter(C_FINALIZE, site, 1, MPI_COMM_NULL, MPI_DATATYPE_NULL, 0);
    R.finalized = 1;
    if (r)
        in_call(C_FINALIZE);
    if (f)
        ((void (*)(F *))f)(ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_finalize, f_finalize, (F * ierr), (ierr))

static void f_send_like(int call, fproc f, void *site, void *buf, F *count, F *dt, F *dest,
                        F *tag, F *comm, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(call, site, 1, c, MPI_Type_f2c(*dt), *count);
    set_p2p(call, *dest, *tag, c, r, 1);
    if (r)
        in_call(call);
    if (f)
        ((void (*)(void *, F *, F *, F *, F *, F *, F *))f)(buf, count, dt, dest, tag, comm,
                                                             ierr);
    else
        no_binding(ierr);
    leave(r);
}

static void f_send(fproc f, void *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm,
                   F *ierr)
{
    f_send_like(C_SEND, f, site, buf, count, dt, dest, tag, comm, ierr);
}
F_NAMES(mpi_send, f_send, (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr),
        (buf, count, dt, dest, tag, comm, ierr))

static void f_ssend(fproc f, void *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm,
                    F *ierr)
{
    f_send_like(C_SSEND, f, site, buf, count, dt, dest, tag, comm, ierr);
}
F_NAMES(mpi_ssend, f_ssend, (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr),
        (buf, count, dt, dest, tag, comm, ierr))

static void f_recv(fproc f, void *site, void *buf, F *count, F *dt, F *source, F *tag, F *comm,
                   F *status, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_RECV, site, 1, c, MPI_Type_f2c(*dt), *count);
    set_p2p(C_RECV, *source, *tag, c, r, 0);
    if (r)
        in_call(C_RECV);
    if (f)
        ((void (*)(void *, F *, F *, F *, F *, F *, F *, F *))f)(buf, count, dt, source, tag,
                                                                  comm, status, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_recv, f_recv,
        (void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *status, F *ierr),
        (buf, count, dt, source, tag, comm, status, ierr))

static void f_probe(fproc f, void *site, F *source, F *tag, F *comm, F *status, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_PROBE, site, 1, c, MPI_DATATYPE_NULL, 0);
    set_p2p(C_PROBE, *source, *tag, c, r, 0);
    if (r)
        in_call(C_PROBE);
    if (f)
        ((void (*)(F *, F *, F *, F *, F *))f)(source, tag, comm, status, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_probe, f_probe, (F * source, F *tag, F *comm, F *status, F *ierr),
        (source, tag, comm, status, ierr))

static void f_sendrecv(fproc f, void *site, void *sbuf, F *scount, F *sdt, F *dest, F *stag,
                       void *rbuf, F *rcount, F *rdt, F *source, F *rtag, F *comm, F *status,
                       F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_SENDRECV, site, 1, c, MPI_Type_f2c(*sdt), *scount);
    set_p2p(C_SENDRECV, *dest, *stag, c, r, 1);
    if (r) {
        R.cur.peer2 = world_rank_of(*source, c);
        R.cur.tag2 = tag_of(*rtag);
        in_call(C_SENDRECV);
    }
    if (f)
        ((void (*)(void *, F *, F *, F *, F *, void *, F *, F *, F *, F *, F *, F *, F *))f)(
            sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm, status, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_sendrecv, f_sendrecv,
        (void *sbuf, F *scount, F *sdt, F *dest, F *stag, void *rbuf, F *rcount, F *rdt,
         F *source, F *rtag, F *comm, F *status, F *ierr),
        (sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm, status, ierr))

static void f_isend(fproc f, void *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm,
                    F *req, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_ISEND, site, 0, c, MPI_Type_f2c(*dt), *count);
    if (f)
        ((void (*)(void *, F *, F *, F *, F *, F *, F *, F *))f)(buf, count, dt, dest, tag,
                                                                  comm, req, ierr);
    else
        no_binding(ierr);
    if (r && f && fok(ierr)) {
        MPI_Request cr = MPI_Request_f2c(*req);
        int w = world_rank_of(*dest, c);
        remember_request(&cr, 1, w, tag_of(*tag));
        note_p2p(C_ISEND, (uint64_t)(uintptr_t)site, w, tag_of(*tag));
    }
    leave(0);
}
F_NAMES(mpi_isend, f_isend,
        (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr),
        (buf, count, dt, dest, tag, comm, req, ierr))

static void f_irecv(fproc f, void *site, void *buf, F *count, F *dt, F *source, F *tag,
                    F *comm, F *req, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_IRECV, site, 0, c, MPI_Type_f2c(*dt), *count);
    if (f)
        ((void (*)(void *, F *, F *, F *, F *, F *, F *, F *))f)(buf, count, dt, source, tag,
                                                                  comm, req, ierr);
    else
        no_binding(ierr);
    if (r && f && fok(ierr)) {
        MPI_Request cr = MPI_Request_f2c(*req);
        remember_request(&cr, 2, world_rank_of(*source, c), tag_of(*tag));
    }
    leave(0);
}
F_NAMES(mpi_irecv, f_irecv,
        (void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *req, F *ierr),
        (buf, count, dt, source, tag, comm, req, ierr))

/* Fortran requests as the C handles the table knows them by. */
static void note_frequests(int n, const F *freqs)
{
    MPI_Request c[REC_NREQ];
    int k = n < REC_NREQ ? n : REC_NREQ;
    for (int i = 0; i < k; i++)
        c[i] = MPI_Request_f2c(freqs[i]);
    note_requests(k, c);
}

static void f_wait(fproc f, void *site, F *req, F *status, F *ierr)
{
    int r = enter(C_WAIT, site, 1, MPI_COMM_NULL, MPI_DATATYPE_NULL, 1);
    if (r) {
        note_frequests(1, req);
        in_call(C_WAIT);
    }
    if (f)
        ((void (*)(F *, F *, F *))f)(req, status, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_wait, f_wait, (F * req, F *status, F *ierr), (req, status, ierr))

static void f_waitall(fproc f, void *site, F *n, F *reqv, F *statuses, F *ierr)
{
    int r = enter(C_WAITALL, site, 1, MPI_COMM_NULL, MPI_DATATYPE_NULL, *n);
    if (r) {
        note_frequests(*n, reqv);
        in_call(C_WAITALL);
    }
    if (f)
        ((void (*)(F *, F *, F *, F *))f)(n, reqv, statuses, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_waitall, f_waitall, (F * n, F *reqv, F *statuses, F *ierr),
        (n, reqv, statuses, ierr))

static void f_waitany(fproc f, void *site, F *n, F *reqv, F *index, F *status, F *ierr)
{
    int r = enter(C_WAITANY, site, 1, MPI_COMM_NULL, MPI_DATATYPE_NULL, *n);
    if (r) {
        note_frequests(*n, reqv);
        in_call(C_WAITANY);
    }
    if (f)
        ((void (*)(F *, F *, F *, F *, F *))f)(n, reqv, index, status, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_waitany, f_waitany, (F * n, F *reqv, F *index, F *status, F *ierr),
        (n, reqv, index, status, ierr))

static void f_barrier(fproc f, void *site, F *comm, F *ierr)
{
    int r = enter(C_BARRIER, site, 1, MPI_Comm_f2c(*comm), MPI_DATATYPE_NULL, 0);
    if (r)
        in_call(C_BARRIER);
    if (f)
        ((void (*)(F *, F *))f)(comm, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_barrier, f_barrier, (F * comm, F *ierr), (comm, ierr))

static void f_bcast(fproc f, void *site, void *buf, F *count, F *dt, F *root, F *comm, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_BCAST, site, 1, c, MPI_Type_f2c(*dt), *count);
    set_root(*root, c, r);
    if (r)
        in_call(C_BCAST);
    if (f)
        ((void (*)(void *, F *, F *, F *, F *, F *))f)(buf, count, dt, root, comm, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_bcast, f_bcast, (void *buf, F *count, F *dt, F *root, F *comm, F *ierr),
        (buf, count, dt, root, comm, ierr))

static void f_reduce(fproc f, void *site, void *sbuf, void *rbuf, F *count, F *dt, F *op,
                     F *root, F *comm, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_REDUCE, site, 1, c, MPI_Type_f2c(*dt), *count);
    set_root(*root, c, r);
    if (r)
        in_call(C_REDUCE);
    if (f)
        ((void (*)(void *, void *, F *, F *, F *, F *, F *, F *))f)(sbuf, rbuf, count, dt, op,
                                                                     root, comm, ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_reduce, f_reduce,
        (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *ierr),
        (sbuf, rbuf, count, dt, op, root, comm, ierr))

static void f_allreduce(fproc f, void *site, void *sbuf, void *rbuf, F *count, F *dt, F *op,
                        F *comm, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(C_ALLREDUCE, site, 1, c, MPI_Type_f2c(*dt), *count);
    if (r)
        in_call(C_ALLREDUCE);
    if (f)
        ((void (*)(void *, void *, F *, F *, F *, F *, F *))f)(sbuf, rbuf, count, dt, op, comm,
                                                                ierr);
    else
        no_binding(ierr);
    leave(r);
}
F_NAMES(mpi_allreduce, f_allreduce,
        (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr),
        (sbuf, rbuf, count, dt, op, comm, ierr))

/* Alltoall and Allgather (no root): the same eight arguments. */
static void f_all_like(int call, fproc f, void *site, void *sbuf, F *scount, F *sdt,
                       void *rbuf, F *rcount, F *rdt, F *comm, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int r = enter(call, site, 1, c, MPI_Type_f2c(*sdt), *scount);
    if (r)
        in_call(call);
    if (f)
        ((void (*)(void *, F *, F *, void *, F *, F *, F *, F *))f)(sbuf, scount, sdt, rbuf,
                                                                     rcount, rdt, comm, ierr);
    else
        no_binding(ierr);
    leave(r);
}

static void f_alltoall(fproc f, void *site, void *sbuf, F *scount, F *sdt, void *rbuf,
                       F *rcount, F *rdt, F *comm, F *ierr)
{
    f_all_like(C_ALLTOALL, f, site, sbuf, scount, sdt, rbuf, rcount, rdt, comm, ierr);
}
F_NAMES(mpi_alltoall, f_alltoall,
        (void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *comm, F *ierr),
        (sbuf, scount, sdt, rbuf, rcount, rdt, comm, ierr))

static void f_allgather(fproc f, void *site, void *sbuf, F *scount, F *sdt, void *rbuf,
                        F *rcount, F *rdt, F *comm, F *ierr)
{
    f_all_like(C_ALLGATHER, f, site, sbuf, scount, sdt, rbuf, rcount, rdt, comm, ierr);
}
F_NAMES(mpi_allgather, f_allgather,
        (void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *comm, F *ierr),
        (sbuf, scount, sdt, rbuf, rcount, rdt, comm, ierr))

/* Gather and Scatter (a root); the count and type recorded are the root's data's: the send
   side of a gather, the receive side of a scatter. */
static void f_rooted_like(int call, fproc f, void *site, void *sbuf, F *scount, F *sdt,
                          void *rbuf, F *rcount, F *rdt, F *root, F *comm, F *ierr)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    F *dt = call == C_SCATTER ? rdt : sdt;
    F *count = call == C_SCATTER ? rcount : scount;
    int r = enter(call, site, 1, c, MPI_Type_f2c(*dt), *count);
    set_root(*root, c, r);
    if (r)
        in_call(call);
    if (f)
        ((void (*)(void *, F *, F *, void *, F *, F *, F *, F *, F *))f)(
            sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, ierr);
    else
        no_binding(ierr);
    leave(r);
}

static void f_gather(fproc f, void *site, void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount,
                     F *rdt, F *root, F *comm, F *ierr)
{
    f_rooted_like(C_GATHER, f, site, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, ierr);
}
F_NAMES(mpi_gather, f_gather,
        (void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *root, F *comm,
         F *ierr),
        (sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, ierr))

static void f_scatter(fproc f, void *site, void *sbuf, F *scount, F *sdt, void *rbuf,
                      F *rcount, F *rdt, F *root, F *comm, F *ierr)
{
    f_rooted_like(C_SCATTER, f, site, sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, ierr);
}
F_NAMES(mpi_scatter, f_scatter,
        (void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *root, F *comm,
         F *ierr),
        (sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, ierr))
