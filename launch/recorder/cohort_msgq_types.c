/* The types Open MPI's message-queue library (libompi_dbg_msgq.so, the MQS interface of
 * TotalView) looks up in the debugger's type system, from the installed Open MPI's own
 * headers and configuration (libopenmpi-dev), compiled with -g by that Open MPI's mpicc:
 * cohort reads their DWARF where libmpi itself has none (a stripped distribution library
 * without its debug symbols). Built at first use (cohort_launch::msgq_types). */
#include "ompi_config.h"

/* ompi/peruse/peruse.h is not installed; with PERUSE off (as here) peruse-internal.h only
 * defines these three macros empty. */
#if OMPI_WANT_PERUSE
#error "Open MPI built with PERUSE: its peruse.h is needed"
#endif
#define _PERUSE_INTERNAL_H_
#define PERUSE_TRACE_COMM_EVENT(event, base_req, op)
#define PERUSE_TRACE_COMM_OMPI_EVENT(event, base_req, size, op)
#define PERUSE_TRACE_MSG_EVENT(event, comm_ptr, hdr_peer, hdr_tag, op)

#include "opal/class/opal_list.h"
#include "opal/class/opal_free_list.h"
#include "opal/class/opal_hash_table.h"
#include "opal/class/opal_pointer_array.h"
#include "ompi/request/request.h"
#include "ompi/mca/pml/base/pml_base_request.h"
#include "ompi/mca/pml/base/pml_base_sendreq.h"
#include "ompi/mca/pml/base/pml_base_recvreq.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/topo/topo.h"
#include "ompi/group/group.h"
#include "ompi/datatype/ompi_datatype.h"

/* One object of each type, so that its definition is in the DWARF. */
opal_list_item_t *cohort_t_list_item;
opal_list_t *cohort_t_list;
opal_free_list_item_t *cohort_t_free_list_item;
opal_free_list_t *cohort_t_free_list;
opal_hash_table_t *cohort_t_hash_table;
opal_pointer_array_t *cohort_t_pointer_array;
ompi_request_t *cohort_t_request;
mca_pml_base_request_t *cohort_t_pml_request;
mca_pml_base_send_request_t *cohort_t_pml_send_request;
mca_pml_base_recv_request_t *cohort_t_pml_recv_request;
ompi_communicator_t *cohort_t_communicator;
mca_topo_base_module_t *cohort_t_topo;
mca_topo_base_comm_cart_2_2_0_t *cohort_t_cart;
mca_topo_base_comm_graph_2_2_0_t *cohort_t_graph;
mca_topo_base_comm_dist_graph_2_2_0_t *cohort_t_dist_graph;
ompi_group_t *cohort_t_group;
ompi_status_public_t *cohort_t_status;
ompi_datatype_t *cohort_t_datatype;
opal_datatype_t *cohort_t_opal_datatype;
