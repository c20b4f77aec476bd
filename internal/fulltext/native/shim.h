// The C side of the binding: the paimon-ftindex C ABI declared as function-pointer types, the
// table of entry points resolved with dlsym, and small wrappers that call an entry point and
// capture the engine's thread-local error message on the same OS thread.

#ifndef PKFT_NATIVE_SHIM_H
#define PKFT_NATIVE_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	void *ctx;
	int (*write_fn)(void *ctx, const uint8_t *buf, size_t len);
	int (*flush_fn)(void *ctx);
} pkft_output_file;

typedef struct {
	void *ctx;
	int (*pread_fn)(void *ctx, uint64_t pos, uint8_t *buf, size_t len);
} pkft_input_file;

typedef struct {
	void *dl;
	const char *(*last_error)(void);
	void *(*writer_open)(const char **keys, const char **values, size_t len);
	int (*writer_add_document)(void *writer, int64_t row_id, const char *text);
	int (*writer_write_index)(void *writer, pkft_output_file output);
	void (*writer_free)(void *writer);
	void *(*reader_open)(pkft_input_file input);
	int (*reader_search)(void *reader, const char *query, size_t limit, int64_t *row_ids,
			     float *scores, size_t capacity, size_t *result_len);
	int (*reader_search_with_roaring_filter)(void *reader, const char *query, size_t limit,
						 const uint8_t *filter, size_t filter_len,
						 int64_t *row_ids, float *scores, size_t capacity,
						 size_t *result_len);
	int (*reader_prewarm)(void *reader);
	void (*reader_free)(void *reader);
} pkft_api;

// pkft_load opens the library at path and resolves every entry point. On failure it returns
// NULL and sets *err to a malloc'd message.
pkft_api *pkft_load(const char *path, char **err);

void *pkft_writer_open(pkft_api *api, const char **keys, const char **values, size_t len,
		       char **err);
// pkft_writer_add_batch adds n documents whose texts are NUL-terminated strings packed in buf at
// the given offsets: one cgo crossing for many documents. On failure *failed is the index of the
// document that failed.
int pkft_writer_add_batch(pkft_api *api, void *writer, const int64_t *row_ids, const char *buf,
			  const size_t *offsets, size_t n, size_t *failed, char **err);
int pkft_writer_write(pkft_api *api, void *writer, uintptr_t sink, char **err);
void pkft_writer_free(pkft_api *api, void *writer);

void *pkft_reader_open(pkft_api *api, uintptr_t source, char **err);
int pkft_reader_search(pkft_api *api, void *reader, const char *query, size_t limit,
		       const uint8_t *filter, size_t filter_len, int filtered, int64_t *row_ids,
		       float *scores, size_t capacity, size_t *result_len, char **err);
int pkft_reader_prewarm(pkft_api *api, void *reader, char **err);
void pkft_reader_free(pkft_api *api, void *reader);

#endif
