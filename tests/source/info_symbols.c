/* Symbols to look up with info functions / variables / types. */
typedef struct widget {
    int size;
} widget_t;
typedef unsigned int widget_id;
enum widget_kind { WK_SMALL, WK_LARGE };
union widget_raw { int i; float f; };

int widget_count = 2;
static double widget_scale = 1.5;
const char *widget_names[2] = {"knob", "lever"};
static widget_t widget_store[2];

static int widget_make(widget_id id) { widget_store[id].size = (int)(id * widget_scale); return widget_store[id].size; }
int widget_total(void) { return widget_store[0].size + widget_store[1].size; }
void widget_reset(enum widget_kind k) { widget_store[k].size = 0; }
int gadget_make(union widget_raw r) { return r.i; }

int main(void)
{
    union widget_raw r = {.i = 3};
    widget_make(0);
    widget_make(1);
    int t = widget_total();
    widget_reset(WK_SMALL);
    return t + gadget_make(r) + widget_count == 0;
}
