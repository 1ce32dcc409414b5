/* snapdiff.c -- a small strict JSON parser (depth-limited) plus the flatten-and-compare. */
#include "snapdiff.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct jnode {
    char type;            /* 'o' object, 'a' array, 's' string, 'n' number/literal */
    char *text;           /* s / n */
    size_t n;
    char **keys;          /* o */
    struct jnode **kids;  /* o / a */
} jnode;

typedef struct {
    const char *p;
    const char *err;
    int depth;
} jparser;

static void jfree(jnode *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        if (j->keys)
            free(j->keys[i]);
        jfree(j->kids[i]);
    }
    free(j->keys);
    free(j->kids);
    free(j->text);
    free(j);
}

static void skip_ws(jparser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static char *parse_string(jparser *ps)
{
    if (*ps->p != '"') {
        ps->err = "expected a string";
        return NULL;
    }
    ps->p++;
    size_t cap = 32, n = 0;
    char *s = malloc(cap);
    if (!s)
        abort();
    while (*ps->p && *ps->p != '"') {
        char ch = *ps->p++;
        if ((unsigned char)ch < 0x20) {
            ps->err = "control character in string";
            free(s);
            return NULL;
        }
        if (ch == '\\') {
            char e = *ps->p++;
            switch (e) {
            case '"': case '\\': case '/': ch = e; break;
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'u':
                for (int i = 0; i < 4; i++)
                    if (!isxdigit((unsigned char)ps->p[i])) {
                        ps->err = "bad \\u escape";
                        free(s);
                        return NULL;
                    }
                ps->p += 4;
                ch = '?'; /* the doctor never writes non-ASCII escapes that matter */
                break;
            default:
                ps->err = "bad escape";
                free(s);
                return NULL;
            }
        }
        if (n + 2 > cap) {
            cap *= 2;
            char *ns = realloc(s, cap);
            if (!ns)
                abort();
            s = ns;
        }
        s[n++] = ch;
    }
    if (*ps->p != '"') {
        ps->err = "unterminated string";
        free(s);
        return NULL;
    }
    ps->p++;
    s[n] = 0;
    return s;
}

static jnode *parse_value(jparser *ps);

static void add_kid(jnode *j, char *key, jnode *kid)
{
    j->kids = realloc(j->kids, (j->n + 1) * sizeof *j->kids);
    if (!j->kids)
        abort();
    if (j->type == 'o') {
        j->keys = realloc(j->keys, (j->n + 1) * sizeof *j->keys);
        if (!j->keys)
            abort();
        j->keys[j->n] = key;
    }
    j->kids[j->n++] = kid;
}

static jnode *parse_container(jparser *ps, char open)
{
    char close = open == '{' ? '}' : ']';
    jnode *j = dr_xcalloc(1, sizeof *j);
    j->type = open == '{' ? 'o' : 'a';
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return j;
    }
    for (;;) {
        skip_ws(ps);
        char *key = NULL;
        if (open == '{') {
            key = parse_string(ps);
            if (!key)
                goto fail;
            skip_ws(ps);
            if (*ps->p != ':') {
                ps->err = "expected ':'";
                free(key);
                goto fail;
            }
            ps->p++;
        }
        jnode *kid = parse_value(ps);
        if (!kid) {
            free(key);
            goto fail;
        }
        add_kid(j, key, kid);
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == close) {
            ps->p++;
            return j;
        }
        ps->err = open == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
        goto fail;
    }
fail:
    jfree(j);
    return NULL;
}

static jnode *parse_value(jparser *ps)
{
    skip_ws(ps);
    if (++ps->depth > 64) {
        ps->err = "nested too deeply";
        return NULL;
    }
    jnode *r = NULL;
    if (*ps->p == '{' || *ps->p == '[') {
        r = parse_container(ps, *ps->p);
    } else if (*ps->p == '"') {
        char *s = parse_string(ps);
        if (s) {
            r = dr_xcalloc(1, sizeof *r);
            r->type = 's';
            r->text = s;
        }
    } else {
        const char *st = ps->p;
        if (strncmp(st, "true", 4) == 0)
            ps->p += 4;
        else if (strncmp(st, "false", 5) == 0)
            ps->p += 5;
        else if (strncmp(st, "null", 4) == 0)
            ps->p += 4;
        else {
            if (*ps->p == '-')
                ps->p++;
            if (!isdigit((unsigned char)*ps->p)) {
                ps->err = "unexpected character";
                ps->depth--;
                return NULL;
            }
            while (isdigit((unsigned char)*ps->p) || *ps->p == '.' || *ps->p == 'e' || *ps->p == 'E' ||
                   *ps->p == '+' || *ps->p == '-')
                ps->p++;
        }
        r = dr_xcalloc(1, sizeof *r);
        r->type = 'n';
        r->text = dr_xcalloc((size_t)(ps->p - st) + 1, 1);
        memcpy(r->text, st, (size_t)(ps->p - st));
    }
    ps->depth--;
    return r;
}

static const char *member(const jnode *o, const char *key)
{
    if (o->type != 'o')
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0 && o->kids[i]->type == 's')
            return o->kids[i]->text;
    return NULL;
}

static void flatten(const jnode *j, const char *prefix, dr_strlist *keys, dr_strlist *vals)
{
    if (j->type == 's' || j->type == 'n') {
        dr_sl_push(keys, prefix);
        dr_sl_push(vals, j->text);
        return;
    }
    for (size_t i = 0; i < j->n; i++) {
        char *k;
        if (j->type == 'o') {
            k = dr_fmt("%s%s%s", prefix, prefix[0] ? "." : "", j->keys[i]);
        } else {
            const jnode *e = j->kids[i];
            const char *path = member(e, "path"), *code = member(e, "code"), *msg = member(e, "message"),
                       *name = member(e, "name"), *mode = member(e, "mode");
            if (code && msg)
                k = dr_fmt("%s[%s: %s]", prefix, code, msg);
            else if (path && path[0])
                k = dr_fmt("%s[%s]", prefix, path);
            else if (name)
                k = dr_fmt("%s[%s]", prefix, name);
            else if (mode)
                k = dr_fmt("%s[%s]", prefix, mode);
            else
                k = dr_fmt("%s[%zu]", prefix, i);
        }
        flatten(j->kids[i], k, keys, vals);
        free(k);
    }
}

int dr_json_flatten(const char *text, dr_strlist *keys, dr_strlist *vals, char *err, size_t errcap)
{
    jparser ps = {text, NULL, 0};
    jnode *root = parse_value(&ps);
    if (root) {
        skip_ws(&ps);
        if (*ps.p) {
            ps.err = "trailing characters after the JSON value";
            jfree(root);
            root = NULL;
        }
    }
    if (!root) {
        snprintf(err, errcap, "invalid JSON at byte %ld: %s", (long)(ps.p - text), ps.err ? ps.err : "?");
        return 0;
    }
    if (root->type != 'o' || !member(root, "tool") || strcmp(member(root, "tool"), "cudnn-doctor") != 0) {
        snprintf(err, errcap, "not a cudnn-doctor snapshot (no \"tool\": \"cudnn-doctor\")");
        jfree(root);
        return 0;
    }
    flatten(root, "", keys, vals);
    jfree(root);
    return 1;
}

static char *slurp(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *b = malloc(cap);
    if (!b)
        abort();
    size_t r;
    while ((r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 >= cap) {
            if (cap > (256u << 20))
                break;
            cap *= 2;
            char *nb = realloc(b, cap);
            if (!nb)
                abort();
            b = nb;
        }
    }
    fclose(f);
    b[n] = 0;
    if (memchr(b, 0, n)) { /* binary garbage: NUL inside */
        b[0] = 1;
        b[1] = 0;
    }
    return b;
}

static long find_key(const dr_strlist *keys, const char *k)
{
    for (size_t i = 0; i < keys->n; i++)
        if (strcmp(keys->v[i], k) == 0)
            return (long)i;
    return -1;
}

/* "copies[/a/b].version" -> "copies[/a/b]" (the array element), or "" for a plain key */
static void element_of(const char *k, char *out, size_t cap)
{
    const char *b = strchr(k, '[');
    out[0] = 0;
    if (!b)
        return;
    int depth = 0;
    for (const char *p = b; *p; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']' && --depth == 0) {
            size_t n = (size_t)(p - k) + 1;
            if (n >= cap)
                n = cap - 1;
            memcpy(out, k, n);
            out[n] = 0;
            return;
        }
    }
}

static int has_prefix_key(const dr_strlist *keys, const char *prefix)
{
    size_t l = strlen(prefix);
    for (size_t i = 0; i < keys->n; i++)
        if (strncmp(keys->v[i], prefix, l) == 0)
            return 1;
    return 0;
}

static int one_side(const dr_strlist *ka, const dr_strlist *va, const dr_strlist *kb, char sign, FILE *out)
{
    int n = 0;
    dr_strlist done = {0};
    for (size_t i = 0; i < ka->n; i++) {
        if (find_key(kb, ka->v[i]) >= 0)
            continue;
        char el[8192];
        element_of(ka->v[i], el, sizeof el);
        if (el[0] && !has_prefix_key(kb, el)) {
            if (dr_sl_push_unique(&done, el)) {
                fprintf(out, "%c %s\n", sign, el);
                n++;
            }
            continue;
        }
        fprintf(out, "%c %s = %s\n", sign, ka->v[i], va->v[i]);
        n++;
    }
    dr_sl_free(&done);
    return n;
}

int dr_snapshot_diff(const char *file_a, const char *file_b, FILE *out, FILE *errf)
{
    const char *files[2] = {file_a, file_b};
    dr_strlist k[2] = {{0}, {0}}, v[2] = {{0}, {0}};
    for (int i = 0; i < 2; i++) {
        char *text = slurp(files[i]);
        char err[256];
        if (!text) {
            fprintf(errf, "cudnn-doctor diff: cannot read %s\n", files[i]);
            goto bad;
        }
        int ok = dr_json_flatten(text, &k[i], &v[i], err, sizeof err);
        free(text);
        if (!ok) {
            fprintf(errf, "cudnn-doctor diff: %s: %s\n", files[i], err);
            goto bad;
        }
    }
    int changes = 0;
    fprintf(out, "snapshot diff: %s -> %s\n", file_a, file_b);
    for (size_t i = 0; i < k[0].n; i++) {
        long j = find_key(&k[1], k[0].v[i]);
        if (j >= 0 && strcmp(v[0].v[i], v[1].v[j]) != 0) {
            fprintf(out, "~ %s: %s -> %s\n", k[0].v[i], v[0].v[i], v[1].v[j]);
            changes++;
        }
    }
    changes += one_side(&k[0], &v[0], &k[1], '-', out);
    changes += one_side(&k[1], &v[1], &k[0], '+', out);
    fprintf(out, "%d change%s\n", changes, changes == 1 ? "" : "s");
    for (int i = 0; i < 2; i++) {
        dr_sl_free(&k[i]);
        dr_sl_free(&v[i]);
    }
    return changes ? 1 : 0;
bad:
    for (int i = 0; i < 2; i++) {
        dr_sl_free(&k[i]);
        dr_sl_free(&v[i]);
    }
    return 2;
}
