#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "_cgo_export.h"

static char *dup_message(const char *msg) {
	return strdup(msg != NULL ? msg : "unknown error");
}

static char *engine_error(pkft_api *api) {
	const char *msg = api->last_error();
	return dup_message(msg != NULL ? msg : "native full-text call failed without a message");
}

#define RESOLVE(field, symbol)                                                                 \
	do {                                                                                   \
		*(void **)(&api->field) = dlsym(dl, symbol);                                   \
		if (api->field == NULL) {                                                      \
			char buf[256];                                                         \
			snprintf(buf, sizeof buf, "symbol %s not found", symbol);              \
			*err = dup_message(buf);                                               \
			dlclose(dl);                                                           \
			free(api);                                                             \
			return NULL;                                                           \
		}                                                                              \
	} while (0)

pkft_api *pkft_load(const char *path, char **err) {
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		*err = dup_message(dlerror());
		return NULL;
	}
	pkft_api *api = calloc(1, sizeof(pkft_api));
	if (api == NULL) {
		dlclose(dl);
		*err = dup_message("out of memory");
		return NULL;
	}
	api->dl = dl;
	RESOLVE(last_error, "paimon_ftindex_last_error");
	RESOLVE(writer_open, "paimon_ftindex_writer_open");
	RESOLVE(writer_add_document, "paimon_ftindex_writer_add_document");
	RESOLVE(writer_write_index, "paimon_ftindex_writer_write_index");
	RESOLVE(writer_free, "paimon_ftindex_writer_free");
	RESOLVE(reader_open, "paimon_ftindex_reader_open");
	RESOLVE(reader_search, "paimon_ftindex_reader_search");
	RESOLVE(reader_search_with_roaring_filter, "paimon_ftindex_reader_search_with_roaring_filter");
	RESOLVE(reader_prewarm, "paimon_ftindex_reader_prewarm");
	RESOLVE(reader_free, "paimon_ftindex_reader_free");
	return api;
}

void *pkft_writer_open(pkft_api *api, const char **keys, const char **values, size_t len,
		       char **err) {
	void *w = api->writer_open(keys, values, len);
	if (w == NULL) {
		*err = engine_error(api);
	}
	return w;
}

int pkft_writer_add_batch(pkft_api *api, void *writer, const int64_t *row_ids, const char *buf,
			  const size_t *offsets, size_t n, size_t *failed, char **err) {
	for (size_t i = 0; i < n; i++) {
		if (api->writer_add_document(writer, row_ids[i], buf + offsets[i]) != 0) {
			*failed = i;
			*err = engine_error(api);
			return -1;
		}
	}
	return 0;
}

static int write_trampoline(void *ctx, const uint8_t *buf, size_t len) {
	return pkftGoWrite((uintptr_t)ctx, (uint8_t *)buf, len);
}

static int flush_trampoline(void *ctx) { return pkftGoFlush((uintptr_t)ctx); }

int pkft_writer_write(pkft_api *api, void *writer, uintptr_t sink, char **err) {
	pkft_output_file out;
	out.ctx = (void *)sink;
	out.write_fn = write_trampoline;
	out.flush_fn = flush_trampoline;
	if (api->writer_write_index(writer, out) != 0) {
		*err = engine_error(api);
		return -1;
	}
	return 0;
}

void pkft_writer_free(pkft_api *api, void *writer) { api->writer_free(writer); }

static int pread_trampoline(void *ctx, uint64_t pos, uint8_t *buf, size_t len) {
	return pkftGoPread((uintptr_t)ctx, pos, buf, len);
}

void *pkft_reader_open(pkft_api *api, uintptr_t source, char **err) {
	pkft_input_file in;
	in.ctx = (void *)source;
	in.pread_fn = pread_trampoline;
	void *r = api->reader_open(in);
	if (r == NULL) {
		*err = engine_error(api);
	}
	return r;
}

int pkft_reader_search(pkft_api *api, void *reader, const char *query, size_t limit,
		       const uint8_t *filter, size_t filter_len, int filtered, int64_t *row_ids,
		       float *scores, size_t capacity, size_t *result_len, char **err) {
	int rc;
	if (filtered) {
		rc = api->reader_search_with_roaring_filter(reader, query, limit, filter, filter_len,
							    row_ids, scores, capacity, result_len);
	} else {
		rc = api->reader_search(reader, query, limit, row_ids, scores, capacity, result_len);
	}
	if (rc != 0) {
		*err = engine_error(api);
	}
	return rc;
}

int pkft_reader_prewarm(pkft_api *api, void *reader, char **err) {
	if (api->reader_prewarm(reader) != 0) {
		*err = engine_error(api);
		return -1;
	}
	return 0;
}

void pkft_reader_free(pkft_api *api, void *reader) { api->reader_free(reader); }
