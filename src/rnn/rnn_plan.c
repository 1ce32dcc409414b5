/* Layouts of the weight, reserve and work spaces of an RNN problem (rnn_plan.h). */
#include "core/api.h"
#include "core/desc.h"
#include "rnn/rnn_plan.h"

size_t hd_rnn_pl_elems(const struct cudnnRNNStruct *r, int input_size, int layer)
{
    size_t G = (size_t)hd_rnn_gates(r->cell), H = (size_t)r->hidden_size, P = (size_t)r->proj_size;
    size_t in = (size_t)hd_rnn_layer_in(r, input_size, layer);
    size_t n = 0;
    if (hd_rnn_has_w(r, layer))
        n += G * H * in;
    n += G * H * P;
    if (hd_rnn_has_proj(r))
        n += P * H;
    n += ((size_t)hd_rnn_has_bw(r) + (size_t)hd_rnn_has_br(r)) * G * H;
    return n;
}

/* Elements of the first PL pseudo-layers.  Every layer after the first has the same layout,
 * so this is a product, not a loop: a descriptor may name up to INT_MAX layers, and a size
 * query must answer (or be refused by the size limit) at once, not after billions of steps. */
static size_t pl_prefix(const struct cudnnRNNStruct *r, int input_size, size_t pl)
{
    size_t dirs = (size_t)hd_rnn_dirs(r);
    size_t first = pl < dirs ? pl : dirs;
    size_t n = first * hd_rnn_pl_elems(r, input_size, 0);
    if (pl > dirs)
        n += (pl - dirs) * hd_rnn_pl_elems(r, input_size, 1);
    return n;
}

size_t hd_rnn_weight_elems(const struct cudnnRNNStruct *r, int input_size)
{
    if (r->num_layers <= 0)
        return 0;
    return pl_prefix(r, input_size, (size_t)r->num_layers * (size_t)hd_rnn_dirs(r));
}

size_t hd_rnn_weight_bytes(const struct cudnnRNNStruct *r)
{
    return hd_rnn_weight_elems(r, r->input_size) * hd_dtype_size(r->dtype);
}

hd_rnn_piece hd_rnn_locate(const struct cudnnRNNStruct *r, int input_size, int pl, int id)
{
    int G = hd_rnn_gates(r->cell), H = r->hidden_size, P = r->proj_size;
    int dirs = hd_rnn_dirs(r), layer = pl / dirs;
    int in = hd_rnn_layer_in(r, input_size, layer);
    size_t base = pl > 0 ? pl_prefix(r, input_size, (size_t)pl) : 0;
    hd_rnn_piece pc = { (size_t)-1, 0, 0, (size_t)-1, 0 };
    size_t wsz = hd_rnn_has_w(r, layer) ? (size_t)H * (size_t)in : 0;
    size_t mats = (size_t)G * wsz + (size_t)G * H * P + (hd_rnn_has_proj(r) ? (size_t)P * H : 0);
    if (id < G) {
        if (wsz) { pc.m_off = base + (size_t)id * wsz; pc.m_rows = H; pc.m_cols = in; }
        if (hd_rnn_has_bw(r)) { pc.b_off = base + mats + (size_t)id * H; pc.b_rows = H; }
    } else if (id < 2 * G) {
        pc.m_off = base + (size_t)G * wsz + (size_t)(id - G) * H * P;
        pc.m_rows = H; pc.m_cols = P;
        if (hd_rnn_has_br(r)) {
            size_t bo = hd_rnn_has_bw(r) ? (size_t)G * H : 0;
            pc.b_off = base + mats + bo + (size_t)(id - G) * H; pc.b_rows = H;
        }
    } else if (id == 2 * G && hd_rnn_has_proj(r)) {
        pc.m_off = base + (size_t)G * wsz + (size_t)G * H * P;
        pc.m_rows = P; pc.m_cols = H;
    }
    return pc;
}

hd_rnn_reserve hd_rnn_reserve_layout_ex(const struct cudnnRNNStruct *r, int T, int B, int grads)
{
    size_t G = (size_t)hd_rnn_gates(r->cell), H = (size_t)r->hidden_size, P = (size_t)r->proj_size;
    size_t TB = (size_t)T * (size_t)B, npl = (size_t)r->num_layers * (size_t)hd_rnn_dirs(r);
    size_t g = grads ? 1 : 0;
    hd_rnn_reserve v;
    v.gates = 0;
    v.cell = TB * G * H;
    v.hid = v.cell + TB * H;
    v.dpx = v.hid + TB * H;
    v.dph = v.dpx + g * TB * G * H;
    v.dproj = v.dph + g * TB * G * H;
    v.pl_stride = v.dproj + g * TB * P;
    v.out_base = npl * v.pl_stride;
    v.out_stride = TB * (size_t)hd_rnn_dirs(r) * P;
    v.total = v.out_base + (size_t)r->num_layers * v.out_stride;
    /* Sized whatever the probability: it may change between the size query and the call. */
    v.has_drop = grads && r->num_layers > 1 && r->dropout != NULL;
    v.drop_stride = v.has_drop ? v.out_stride : 0;
    v.drop_mask = v.total;
    v.drop_in = v.drop_mask + (size_t)(r->num_layers - 1) * v.drop_stride;
    v.drop_flag = v.drop_in + (size_t)(r->num_layers - 1) * v.drop_stride;
    v.total = v.drop_flag + (v.has_drop ? 1 : 0);
    return v;
}

hd_rnn_reserve hd_rnn_reserve_layout(const struct cudnnRNNStruct *r, int T, int B)
{
    return hd_rnn_reserve_layout_ex(r, T, B, 1);
}

hd_rnn_work hd_rnn_work_layout(const struct cudnnRNNStruct *r, int input_size, int T, int B, int inference)
{
    size_t G = (size_t)hd_rnn_gates(r->cell), H = (size_t)r->hidden_size, P = (size_t)r->proj_size;
    size_t TB = (size_t)T * (size_t)B, IN = (size_t)input_size, DP = (size_t)hd_rnn_dirs(r) * P;
    size_t W = IN > DP ? IN : DP;
    hd_rnn_work w;
    w.xin = inference ? hd_rnn_reserve_layout_ex(r, T, B, 0).total : 0;
    w.pre = w.xin + TB * IN;
    w.rec = w.pre + TB * G * H;
    w.hprev = w.rec + (size_t)B * G * H;
    w.cprev = w.hprev + (size_t)B * P;
    w.hnew = w.cprev + (size_t)B * H;
    w.hproj = w.hnew + (size_t)B * H;
    /* a bidirectional layer runs its two directions side by side: each has its own copy of
       pre .. hproj, DIR_STRIDE apart */
    w.dir_stride = w.hproj + (size_t)B * P - w.pre;
    w.fwd_end = w.pre + (size_t)hd_rnn_dirs(r) * w.dir_stride;
    w.din = 0;
    w.dout = w.din + TB * W;
    w.hseq = w.dout + TB * W;
    w.dh = w.hseq + TB * P;
    w.dc = w.dh + (size_t)B * P;
    w.dhn = w.dc + (size_t)B * H;
    w.drec = w.dhn + (size_t)B * H;
    w.tmp = w.drec + (size_t)B * G * H;
    /* backward data runs the two directions of a layer side by side too: each has its own
       dh .. tmp, BWD_DIR_STRIDE apart */
    w.bwd_dir_stride = w.tmp + (size_t)B * H - w.dh;
    w.bwd_end = w.dh + (size_t)hd_rnn_dirs(r) * w.bwd_dir_stride;
    w.total = w.fwd_end > w.bwd_end ? w.fwd_end : w.bwd_end;
    return w;
}

hd_rnn_bytes hd_rnn_plan_bytes(const struct cudnnRNNStruct *r, int T, int B, int inference)
{
    size_t es = hd_rnn_compute_size(r);
    hd_rnn_bytes n;
    n.weight = hd_rnn_weight_bytes(r);
    n.work = hd_rnn_work_layout(r, r->input_size, T, B, inference).total * es;
    n.reserve = inference ? 0 : hd_rnn_reserve_layout(r, T, B).total * es;
    return n;
}
