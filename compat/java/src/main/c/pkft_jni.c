/*
 * pkft JNI shim: the runner's bridge from Java to the paimon-ftindex engine through the C ABI of
 * the engine's official wheel library (libpaimon_ftindex_ffi.so), loaded at run time with dlopen.
 * It takes the place of the engine's own JNI library, which cannot be obtained here; see
 * io.github.paimonpkft.fulltext.FtIndexEngine for the Java side.
 *
 * Rules this file keeps:
 * - every engine failure becomes a pending java.lang.RuntimeException carrying the engine's
 *   last_error text, read on the thread that made the failing call (the error is thread-local);
 * - the engine calls the input's pread callback from its own threads: those threads are attached
 *   to the JVM as daemons on first use and detached when they exit; Java objects the callbacks
 *   reach are held through global references;
 * - a Java exception thrown by a callback is cleared on the callback's thread, kept (the first
 *   one) and attached as the cause of the exception the failing engine call raises;
 * - texts and options cross as NUL-terminated UTF-8 copies made here from Java byte arrays.
 */
#include <jni.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	void *ctx;
	int (*write_fn)(void *ctx, const uint8_t *buf, size_t len);
	int (*flush_fn)(void *ctx);
} ft_output_file;

typedef struct {
	void *ctx;
	int (*pread_fn)(void *ctx, uint64_t pos, uint8_t *buf, size_t len);
} ft_input_file;

typedef struct {
	const char *(*last_error)(void);
	void *(*writer_open)(const char **keys, const char **values, size_t len);
	int (*writer_add_document)(void *writer, int64_t row_id, const char *text);
	int (*writer_write_index)(void *writer, ft_output_file output);
	void (*writer_free)(void *writer);
	void *(*reader_open)(ft_input_file input);
	int (*reader_search)(void *reader, const char *query, size_t limit, int64_t *row_ids,
			     float *scores, size_t capacity, size_t *result_len);
	int (*reader_search_with_roaring_filter)(void *reader, const char *query, size_t limit,
						 const uint8_t *filter, size_t filter_len,
						 int64_t *row_ids, float *scores, size_t capacity,
						 size_t *result_len);
	void (*reader_free)(void *reader);
} ft_api;

static JavaVM *g_vm;
static ft_api g_api;
static int g_loaded;
static pthread_mutex_t g_load_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t g_attached_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static void detach_at_exit(void *unused) {
	(void)unused;
	if (g_vm != NULL) {
		(*g_vm)->DetachCurrentThread(g_vm);
	}
}

static void make_key(void) { pthread_key_create(&g_attached_key, detach_at_exit); }

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
	(void)reserved;
	g_vm = vm;
	pthread_once(&g_key_once, make_key);
	return JNI_VERSION_1_8;
}

/* The JNIEnv of the calling thread, attaching an engine thread (as a daemon) on first use. */
static JNIEnv *thread_env(void) {
	JNIEnv *env = NULL;
	jint rc = (*g_vm)->GetEnv(g_vm, (void **)&env, JNI_VERSION_1_8);
	if (rc == JNI_OK) {
		return env;
	}
	if (rc != JNI_EDETACHED) {
		return NULL;
	}
	if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void **)&env, NULL) != JNI_OK) {
		return NULL;
	}
	pthread_setspecific(g_attached_key, (void *)1);
	return env;
}

static void throw_new(JNIEnv *env, const char *cls, const char *msg) {
	jclass c = (*env)->FindClass(env, cls);
	if (c != NULL) {
		(*env)->ThrowNew(env, c, msg);
	}
}

/* Throws RuntimeException(message, cause); cause may be NULL. */
static void throw_with_cause(JNIEnv *env, const char *msg, jthrowable cause) {
	jclass c = (*env)->FindClass(env, "java/lang/RuntimeException");
	if (c == NULL) {
		return;
	}
	jmethodID ctor = (*env)->GetMethodID(env, c, "<init>", "(Ljava/lang/String;Ljava/lang/Throwable;)V");
	jstring jmsg = (*env)->NewStringUTF(env, msg);
	if (ctor == NULL || jmsg == NULL) {
		return;
	}
	jobject ex = (*env)->NewObject(env, c, ctor, jmsg, cause);
	if (ex != NULL) {
		(*env)->Throw(env, (jthrowable)ex);
	}
}

/* Throws the engine's last error of this thread, with the callback failure (if any) as cause. */
static void throw_engine(JNIEnv *env, const char *what, jthrowable cause) {
	const char *msg = g_api.last_error != NULL ? g_api.last_error() : NULL;
	char fallback[256];
	if (msg == NULL || msg[0] == '\0') {
		snprintf(fallback, sizeof fallback, "paimon-ftindex %s failed without a message", what);
		msg = fallback;
	}
	throw_with_cause(env, msg, cause);
}

/* A NUL-terminated malloc'd copy of a Java byte array, or NULL with an exception pending. */
static char *c_string(JNIEnv *env, jbyteArray bytes) {
	if (bytes == NULL) {
		throw_new(env, "java/lang/NullPointerException", "text");
		return NULL;
	}
	jsize n = (*env)->GetArrayLength(env, bytes);
	char *s = malloc((size_t)n + 1);
	if (s == NULL) {
		throw_new(env, "java/lang/OutOfMemoryError", "pkft jni: malloc");
		return NULL;
	}
	(*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte *)s);
	s[n] = '\0';
	return s;
}

#define RESOLVE(field, symbol)                                                                 \
	do {                                                                                   \
		*(void **)(&api.field) = dlsym(dl, symbol);                                    \
		if (api.field == NULL) {                                                       \
			snprintf(err, sizeof err, "symbol %s not found in %s", symbol, path);  \
			goto fail;                                                             \
		}                                                                              \
	} while (0)

JNIEXPORT void JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_load(JNIEnv *env, jclass cls,
									     jstring jpath) {
	(void)cls;
	char err[1024];
	ft_api api;
	void *dl = NULL;
	pthread_mutex_lock(&g_load_mu);
	if (g_loaded) {
		pthread_mutex_unlock(&g_load_mu);
		return;
	}
	const char *path = (*env)->GetStringUTFChars(env, jpath, NULL);
	if (path == NULL) {
		pthread_mutex_unlock(&g_load_mu);
		return;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		snprintf(err, sizeof err, "cannot load %s: %s", path, dlerror());
		goto fail;
	}
	memset(&api, 0, sizeof api);
	RESOLVE(last_error, "paimon_ftindex_last_error");
	RESOLVE(writer_open, "paimon_ftindex_writer_open");
	RESOLVE(writer_add_document, "paimon_ftindex_writer_add_document");
	RESOLVE(writer_write_index, "paimon_ftindex_writer_write_index");
	RESOLVE(writer_free, "paimon_ftindex_writer_free");
	RESOLVE(reader_open, "paimon_ftindex_reader_open");
	RESOLVE(reader_search, "paimon_ftindex_reader_search");
	RESOLVE(reader_search_with_roaring_filter, "paimon_ftindex_reader_search_with_roaring_filter");
	RESOLVE(reader_free, "paimon_ftindex_reader_free");
	g_api = api;
	g_loaded = 1;
	(*env)->ReleaseStringUTFChars(env, jpath, path);
	pthread_mutex_unlock(&g_load_mu);
	return;
fail:
	if (dl != NULL) {
		dlclose(dl);
	}
	(*env)->ReleaseStringUTFChars(env, jpath, path);
	pthread_mutex_unlock(&g_load_mu);
	throw_new(env, "java/lang/UnsatisfiedLinkError", err);
}

/* ---------------------------------------------------------------- writer */

JNIEXPORT jlong JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_writerOpen(JNIEnv *env, jclass cls,
										   jobjectArray jkeys,
										   jobjectArray jvalues) {
	(void)cls;
	jsize n = (*env)->GetArrayLength(env, jkeys);
	if ((*env)->GetArrayLength(env, jvalues) != n) {
		throw_new(env, "java/lang/IllegalArgumentException", "option keys and values differ in number");
		return 0;
	}
	const char **keys = calloc((size_t)n + 1, sizeof(char *));
	const char **values = calloc((size_t)n + 1, sizeof(char *));
	void *w = NULL;
	jsize made = 0;
	if (keys == NULL || values == NULL) {
		throw_new(env, "java/lang/OutOfMemoryError", "pkft jni: calloc");
		goto done;
	}
	for (; made < n; made++) {
		jbyteArray k = (jbyteArray)(*env)->GetObjectArrayElement(env, jkeys, made);
		jbyteArray v = (jbyteArray)(*env)->GetObjectArrayElement(env, jvalues, made);
		keys[made] = c_string(env, k);
		values[made] = keys[made] == NULL ? NULL : c_string(env, v);
		(*env)->DeleteLocalRef(env, k);
		(*env)->DeleteLocalRef(env, v);
		if (keys[made] == NULL || values[made] == NULL) {
			made++;
			goto done;
		}
	}
	w = g_api.writer_open(keys, values, (size_t)n);
	if (w == NULL) {
		throw_engine(env, "writer open", NULL);
	}
done:
	for (jsize i = 0; i < made; i++) {
		free((void *)keys[i]);
		free((void *)values[i]);
	}
	free(keys);
	free(values);
	return (jlong)(intptr_t)w;
}

JNIEXPORT void JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_writerAdd(JNIEnv *env, jclass cls,
										 jlong handle, jlong row_id,
										 jbyteArray text) {
	(void)cls;
	char *s = c_string(env, text);
	if (s == NULL) {
		return;
	}
	if (g_api.writer_add_document((void *)(intptr_t)handle, (int64_t)row_id, s) != 0) {
		throw_engine(env, "add document", NULL);
	}
	free(s);
}

typedef struct {
	jobject sink; /* global */
	jmethodID write;
	jmethodID flush;
	jbyteArray chunk; /* global */
	jsize chunk_len;
	jthrowable failure; /* global, first callback failure */
} write_ctx;

static int keep_failure(JNIEnv *env, jthrowable *slot) {
	jthrowable t = (*env)->ExceptionOccurred(env);
	(*env)->ExceptionClear(env);
	if (*slot == NULL && t != NULL) {
		*slot = (jthrowable)(*env)->NewGlobalRef(env, t);
	}
	if (t != NULL) {
		(*env)->DeleteLocalRef(env, t);
	}
	return -1;
}

static int write_cb(void *p, const uint8_t *buf, size_t len) {
	write_ctx *c = p;
	JNIEnv *env = thread_env();
	if (env == NULL || c->failure != NULL) {
		return -1;
	}
	size_t off = 0;
	while (off < len) {
		size_t n = len - off;
		if (n > (1u << 20)) {
			n = 1u << 20;
		}
		if (c->chunk == NULL || (size_t)c->chunk_len < n) {
			if (c->chunk != NULL) {
				(*env)->DeleteGlobalRef(env, c->chunk);
				c->chunk = NULL;
			}
			jsize want = n < 65536 ? 65536 : (jsize)n;
			jbyteArray local = (*env)->NewByteArray(env, want);
			if (local == NULL) {
				return keep_failure(env, &c->failure);
			}
			c->chunk = (jbyteArray)(*env)->NewGlobalRef(env, local);
			c->chunk_len = want;
			(*env)->DeleteLocalRef(env, local);
		}
		(*env)->SetByteArrayRegion(env, c->chunk, 0, (jsize)n, (const jbyte *)(buf + off));
		(*env)->CallVoidMethod(env, c->sink, c->write, c->chunk, (jint)0, (jint)n);
		if ((*env)->ExceptionCheck(env)) {
			return keep_failure(env, &c->failure);
		}
		off += n;
	}
	return 0;
}

static int flush_cb(void *p) {
	write_ctx *c = p;
	JNIEnv *env = thread_env();
	if (env == NULL || c->failure != NULL) {
		return -1;
	}
	(*env)->CallVoidMethod(env, c->sink, c->flush);
	if ((*env)->ExceptionCheck(env)) {
		return keep_failure(env, &c->failure);
	}
	return 0;
}

JNIEXPORT void JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_writerWrite(JNIEnv *env, jclass cls,
										   jlong handle, jobject sink) {
	(void)cls;
	write_ctx c;
	memset(&c, 0, sizeof c);
	jclass sc = (*env)->GetObjectClass(env, sink);
	c.write = (*env)->GetMethodID(env, sc, "write", "([BII)V");
	c.flush = c.write == NULL ? NULL : (*env)->GetMethodID(env, sc, "flush", "()V");
	if (c.write == NULL || c.flush == NULL) {
		return;
	}
	c.sink = (*env)->NewGlobalRef(env, sink);
	ft_output_file out;
	out.ctx = &c;
	out.write_fn = write_cb;
	out.flush_fn = flush_cb;
	int rc = g_api.writer_write_index((void *)(intptr_t)handle, out);
	if (rc != 0) {
		throw_engine(env, "write index", c.failure);
	}
	if (c.failure != NULL) {
		(*env)->DeleteGlobalRef(env, c.failure);
	}
	if (c.chunk != NULL) {
		(*env)->DeleteGlobalRef(env, c.chunk);
	}
	(*env)->DeleteGlobalRef(env, c.sink);
}

JNIEXPORT void JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_writerFree(JNIEnv *env, jclass cls,
										  jlong handle) {
	(void)env;
	(void)cls;
	if (handle != 0) {
		g_api.writer_free((void *)(intptr_t)handle);
	}
}

/* ---------------------------------------------------------------- reader */

typedef struct {
	void *reader;
	jobject input; /* global */
	jmethodID pread;
	pthread_mutex_t mu;
	jthrowable failure; /* global, first callback failure since the last reset */
} read_ctx;

static int pread_cb(void *p, uint64_t pos, uint8_t *buf, size_t len) {
	read_ctx *c = p;
	if (len == 0) {
		return 0;
	}
	if (len > 0x7fffffff || pos > INT64_MAX) {
		return -1;
	}
	JNIEnv *env = thread_env();
	if (env == NULL) {
		return -1;
	}
	if ((*env)->PushLocalFrame(env, 4) != 0) {
		(*env)->ExceptionClear(env);
		return -1;
	}
	int rc = 0;
	jbyteArray arr = (*env)->NewByteArray(env, (jsize)len);
	if (arr != NULL) {
		(*env)->CallVoidMethod(env, c->input, c->pread, (jlong)pos, arr, (jint)0, (jint)len);
	}
	if (arr == NULL || (*env)->ExceptionCheck(env)) {
		jthrowable t = (*env)->ExceptionOccurred(env);
		(*env)->ExceptionClear(env);
		pthread_mutex_lock(&c->mu);
		if (c->failure == NULL && t != NULL) {
			c->failure = (jthrowable)(*env)->NewGlobalRef(env, t);
		}
		pthread_mutex_unlock(&c->mu);
		rc = -1;
	} else {
		(*env)->GetByteArrayRegion(env, arr, 0, (jsize)len, (jbyte *)buf);
	}
	(*env)->PopLocalFrame(env, NULL);
	return rc;
}

/* Takes the kept callback failure (a global ref the caller deletes), or NULL. */
static jthrowable take_failure(read_ctx *c) {
	pthread_mutex_lock(&c->mu);
	jthrowable t = c->failure;
	c->failure = NULL;
	pthread_mutex_unlock(&c->mu);
	return t;
}

static void free_read_ctx(JNIEnv *env, read_ctx *c) {
	jthrowable t = take_failure(c);
	if (t != NULL) {
		(*env)->DeleteGlobalRef(env, t);
	}
	if (c->input != NULL) {
		(*env)->DeleteGlobalRef(env, c->input);
	}
	pthread_mutex_destroy(&c->mu);
	free(c);
}

JNIEXPORT jlong JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_readerOpen(JNIEnv *env, jclass cls,
										   jobject input) {
	(void)cls;
	jclass ic = (*env)->GetObjectClass(env, input);
	jmethodID pread = (*env)->GetMethodID(env, ic, "pread", "(J[BII)V");
	if (pread == NULL) {
		return 0;
	}
	read_ctx *c = calloc(1, sizeof(read_ctx));
	if (c == NULL) {
		throw_new(env, "java/lang/OutOfMemoryError", "pkft jni: calloc");
		return 0;
	}
	pthread_mutex_init(&c->mu, NULL);
	c->pread = pread;
	c->input = (*env)->NewGlobalRef(env, input);
	ft_input_file in;
	in.ctx = c;
	in.pread_fn = pread_cb;
	c->reader = g_api.reader_open(in);
	if (c->reader == NULL) {
		jthrowable cause = take_failure(c);
		throw_engine(env, "reader open", cause);
		if (cause != NULL) {
			(*env)->DeleteGlobalRef(env, cause);
		}
		free_read_ctx(env, c);
		return 0;
	}
	/* A failure the engine recovered from during open is not this caller's concern. */
	jthrowable stale = take_failure(c);
	if (stale != NULL) {
		(*env)->DeleteGlobalRef(env, stale);
	}
	return (jlong)(intptr_t)c;
}

JNIEXPORT jobject JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_readerSearch(
	JNIEnv *env, jclass cls, jlong handle, jbyteArray jquery, jint limit, jbyteArray jfilter) {
	read_ctx *c = (read_ctx *)(intptr_t)handle;
	if (limit <= 0) {
		throw_new(env, "java/lang/IllegalArgumentException", "search limit must be positive");
		return NULL;
	}
	char *query = c_string(env, jquery);
	if (query == NULL) {
		return NULL;
	}
	uint8_t *filter = NULL;
	jsize filter_len = 0;
	if (jfilter != NULL) {
		filter_len = (*env)->GetArrayLength(env, jfilter);
		filter = malloc(filter_len > 0 ? (size_t)filter_len : 1);
		if (filter == NULL) {
			free(query);
			throw_new(env, "java/lang/OutOfMemoryError", "pkft jni: malloc");
			return NULL;
		}
		(*env)->GetByteArrayRegion(env, jfilter, 0, filter_len, (jbyte *)filter);
	}
	size_t capacity = limit < 1024 ? (size_t)limit : 1024;
	jobject out = NULL;
	for (int attempt = 0; attempt < 2; attempt++) {
		int64_t *ids = malloc(capacity * sizeof(int64_t));
		float *scores = malloc(capacity * sizeof(float));
		if (ids == NULL || scores == NULL) {
			free(ids);
			free(scores);
			throw_new(env, "java/lang/OutOfMemoryError", "pkft jni: malloc");
			break;
		}
		size_t n = 0;
		int rc = filter != NULL
				 ? g_api.reader_search_with_roaring_filter(c->reader, query, (size_t)limit, filter,
									   (size_t)filter_len, ids, scores,
									   capacity, &n)
				 : g_api.reader_search(c->reader, query, (size_t)limit, ids, scores, capacity, &n);
		if (rc != 0 && attempt == 0 && n > capacity && n <= (size_t)limit) {
			/* The engine reported the length it needs: retry once with room for it. */
			free(ids);
			free(scores);
			capacity = n;
			jthrowable stale = take_failure(c);
			if (stale != NULL) {
				(*env)->DeleteGlobalRef(env, stale);
			}
			continue;
		}
		if (rc != 0) {
			free(ids);
			free(scores);
			jthrowable cause = take_failure(c);
			throw_engine(env, "search", cause);
			if (cause != NULL) {
				(*env)->DeleteGlobalRef(env, cause);
			}
			break;
		}
		jlongArray jids = (*env)->NewLongArray(env, (jsize)n);
		jfloatArray jscores = (*env)->NewFloatArray(env, (jsize)n);
		if (jids != NULL && jscores != NULL) {
			(*env)->SetLongArrayRegion(env, jids, 0, (jsize)n, (const jlong *)ids);
			(*env)->SetFloatArrayRegion(env, jscores, 0, (jsize)n, scores);
			jmethodID make = (*env)->GetStaticMethodID(env, cls, "hits", "([J[F)Ljava/lang/Object;");
			if (make != NULL) {
				out = (*env)->CallStaticObjectMethod(env, cls, make, jids, jscores);
			}
		}
		free(ids);
		free(scores);
		break;
	}
	free(query);
	free(filter);
	return out;
}

JNIEXPORT void JNICALL Java_io_github_paimonpkft_fulltext_FtIndexEngine_readerFree(JNIEnv *env, jclass cls,
										  jlong handle) {
	(void)cls;
	read_ctx *c = (read_ctx *)(intptr_t)handle;
	if (c == NULL) {
		return;
	}
	g_api.reader_free(c->reader);
	free_read_ctx(env, c);
}
