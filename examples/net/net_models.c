/*
 * net_models.c -- ResNet-50 (v1.5: the stride sits in the 3x3 convolution) and MobileNet-v2,
 * defined from the layer toolkit.
 *
 * Both take a width multiplier (channel counts scaled, as torchvision's MobileNet-v2 does) and
 * a cap on the blocks per stage, so the tests can train small versions of the same graphs in
 * seconds.  width 1 and no cap give the standard networks.
 */
#include "net.h"

/* Scaled channels, rounded to a multiple of 8 and never more than 10% below the exact value
 * (torchvision's _make_divisible). */
static int scaled(double c, double width)
{
    double v = c * width;
    int r = ((int)(v + 4) / 8) * 8;
    if (r < 8)
        r = 8;
    if (r < 0.9 * v)
        r += 8;
    return r;
}

static int capped(int blocks, int max_blocks)
{
    return max_blocks > 0 && blocks > max_blocks ? max_blocks : blocks;
}

/* conv (no bias: the BN that follows has one) + BN + optional ReLU (clip > 0: ReLU6). */
int net_conv_bn(net *m, int in, int k, int r, int stride, int groups, int relu, double clip)
{
    int y = net_conv(m, in, k, r, stride, r / 2, groups);
    y = net_bn(m, y);
    if (relu)
        y = net_act(m, y, clip > 0 ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU, clip);
    return y;
}

/* 1x1 reduce, 3x3 (strided), 1x1 expand; a projection shortcut when the shape changes. */
static int bottleneck(net *m, int in, int width, int stride)
{
    int cin = m->bufs[in].c, cout = 4 * width;
    int y = net_conv_bn(m, in, width, 1, 1, 1, 1, 0);
    y = net_conv_bn(m, y, width, 3, stride, 1, 1, 0);
    y = net_conv_bn(m, y, cout, 1, 1, 1, 0, 0);
    int skip = in;
    if (stride != 1 || cin != cout)
        skip = net_conv_bn(m, in, cout, 1, stride, 1, 0, 0);
    y = net_add(m, y, skip);
    return net_act(m, y, CUDNN_ACTIVATION_RELU, 0);
}

int net_resnet50(net *m, int in, double width, int max_blocks, int classes)
{
    static const int blocks[4] = {3, 4, 6, 3}, widths[4] = {64, 128, 256, 512};
    int y = net_conv_bn(m, in, scaled(64, width), 7, 2, 1, 1, 0);
    y = net_maxpool(m, y, 3, 2, 1);
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < capped(blocks[s], max_blocks); b++)
            y = bottleneck(m, y, scaled(widths[s], width), b == 0 && s > 0 ? 2 : 1);
    y = net_gap(m, y);
    return net_fc(m, y, classes);
}

/* Expand 1x1 (ReLU6), depthwise 3x3 (ReLU6), project 1x1 (linear); residual when shapes match. */
static int inverted_residual(net *m, int in, int cout, int stride, int expand)
{
    int cin = m->bufs[in].c, hidden = cin * expand;
    int y = in;
    if (expand != 1)
        y = net_conv_bn(m, y, hidden, 1, 1, 1, 1, 6.0);
    y = net_conv_bn(m, y, hidden, 3, stride, hidden, 1, 6.0);   /* depthwise: one group per channel */
    y = net_conv_bn(m, y, cout, 1, 1, 1, 0, 0);
    return stride == 1 && cin == cout ? net_add(m, y, in) : y;
}

int net_mobilenet_v2(net *m, int in, double width, int max_blocks, int classes)
{
    /* expansion t, channels c, blocks n, first stride s */
    static const int cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int y = net_conv_bn(m, in, scaled(32, width), 3, 2, 1, 1, 6.0);
    for (int s = 0; s < 7; s++)
        for (int b = 0; b < capped(cfg[s][2], max_blocks); b++)
            y = inverted_residual(m, y, scaled(cfg[s][1], width), b == 0 ? cfg[s][3] : 1, cfg[s][0]);
    y = net_conv_bn(m, y, scaled(1280, width > 1 ? width : 1), 1, 1, 1, 1, 6.0);
    y = net_gap(m, y);
    return net_fc(m, y, classes);
}
