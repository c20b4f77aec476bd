package io.github.paimonpkft.fulltext;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The runner's binding of the paimon-ftindex engine: the stand-in for the engine's own JNI
 * binding ({@code org.apache.paimon.index.fulltext.FullTextIndexWriter}, {@code
 * FullTextIndexReader}, {@code FullTextSearchResult} of {@code paimon-full-text-index} 0.1.0),
 * which the Maven registry reachable here does not serve. It reaches the same engine core through
 * the C ABI of the engine's official wheel library ({@code libpaimon_ftindex_ffi.so}) via a small
 * JNI shim ({@code src/main/c/pkft_jni.c}, built by {@code make runner} into {@code
 * target/native/libpkftjni.so}).
 *
 * <p>Where the libraries are found: the shim from the system property {@code pkft.jni.lib}, else
 * {@code native/libpkftjni.so} in the directory above the runner's classes or jar; the engine
 * from the system property {@code paimon.ftindex.lib}, else the environment variable {@code
 * PAIMON_FTINDEX_LIB_PATH} (the file or its directory), else {@code
 * .cache/native/libpaimon_ftindex_ffi.so} in the working directory or any parent, then in the
 * runner's directory or any parent — the same places the Go binding looks.
 *
 * <p>Engine failures surface as {@link RuntimeException}s carrying the engine's own message, as
 * the JNI binding's do. One difference the C ABI imposes: texts, queries and options cross as
 * NUL-terminated UTF-8. The JNI binding hands the engine a document's whole string, NUL
 * characters included; here a document's U+0000 is passed as U+0001, which every tokenizer cuts
 * and counts the same way (both are one-byte control characters, neither alphanumeric nor
 * whitespace), as pkft's Go builder does. A query or option containing U+0000 is rejected with an
 * {@link IllegalArgumentException}.
 */
public final class FtIndexEngine {

    /** The engine library's file name. */
    public static final String ENGINE_LIB = "libpaimon_ftindex_ffi.so";

    /** The shim's file name. */
    public static final String SHIM_LIB = "libpkftjni.so";

    private static volatile boolean loaded;

    private FtIndexEngine() {}

    /** Where the archive's bytes go. */
    public interface Output {
        void write(byte[] buffer, int offset, int length) throws IOException;

        void flush() throws IOException;
    }

    /** Positioned reads of an archive; the engine calls it from several threads at once. */
    public interface Input {
        void pread(long position, byte[] buffer, int offset, int length) throws IOException;
    }

    /** The hits of one search, best first. */
    public static final class Hits {
        private final long[] rowIds;
        private final float[] scores;

        Hits(long[] rowIds, float[] scores) {
            this.rowIds = rowIds;
            this.scores = scores;
        }

        public long[] rowIds() {
            return rowIds;
        }

        public float[] scores() {
            return scores;
        }

        public int size() {
            return rowIds.length;
        }
    }

    /** Loads the shim and the engine once per process. */
    public static void ensureLoaded() {
        if (loaded) {
            return;
        }
        synchronized (FtIndexEngine.class) {
            if (loaded) {
                return;
            }
            System.load(locateShim().toString());
            load(locateEngine().toString());
            loaded = true;
        }
    }

    static Path locateShim() {
        String prop = System.getProperty("pkft.jni.lib");
        if (prop != null && !prop.isEmpty()) {
            return Paths.get(prop).toAbsolutePath();
        }
        List<String> tried = new ArrayList<>();
        Path base = codeBase();
        if (base != null) {
            Path candidate = base.getParent().resolve("native").resolve(SHIM_LIB);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
            tried.add(candidate.toString());
        }
        throw new UnsatisfiedLinkError(
                "the runner's JNI shim "
                        + SHIM_LIB
                        + " is not built (make runner), or set -Dpkft.jni.lib; looked in: "
                        + tried);
    }

    static Path locateEngine() {
        List<String> tried = new ArrayList<>();
        String prop = System.getProperty("paimon.ftindex.lib");
        if (prop != null && !prop.isEmpty()) {
            return Paths.get(prop).toAbsolutePath();
        }
        String env = System.getenv("PAIMON_FTINDEX_LIB_PATH");
        if (env != null && !env.isEmpty()) {
            Path p = Paths.get(env);
            Path candidate = Files.isDirectory(p) ? p.resolve(ENGINE_LIB) : p;
            if (Files.isRegularFile(candidate)) {
                return candidate.toAbsolutePath();
            }
            tried.add(candidate + " (from PAIMON_FTINDEX_LIB_PATH)");
        }
        List<Path> starts = new ArrayList<>();
        starts.add(Paths.get("").toAbsolutePath());
        Path base = codeBase();
        if (base != null) {
            starts.add(base);
        }
        for (Path start : starts) {
            for (Path dir = start; dir != null; dir = dir.getParent()) {
                Path candidate = dir.resolve(".cache").resolve("native").resolve(ENGINE_LIB);
                if (Files.isRegularFile(candidate)) {
                    return candidate;
                }
                tried.add(candidate.toString());
            }
        }
        throw new UnsatisfiedLinkError(
                "paimon-ftindex native library not found: set PAIMON_FTINDEX_LIB_PATH to "
                        + ENGINE_LIB
                        + " (or its directory), or run `make native`; looked in: "
                        + tried);
    }

    /** The directory or jar the runner's classes come from, absolute. */
    private static Path codeBase() {
        try {
            File f =
                    new File(
                            FtIndexEngine.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI());
            return f.toPath().toAbsolutePath();
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            return null;
        }
    }

    /** UTF-8 bytes of s for the C ABI; rejects U+0000, which a C string cannot carry. */
    static byte[] cBytes(String s, String what) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(
                    what + " contains a NUL character, which the engine's C ABI cannot carry");
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * UTF-8 bytes of a document's text for the C ABI: U+0000, which a C string cannot carry, is
     * passed as U+0001 (see the class comment).
     */
    static byte[] documentBytes(String s) {
        return s.replace('\0', '\u0001').getBytes(StandardCharsets.UTF_8);
    }

    /** An engine writer. Not thread-safe, as the JNI binding's writer is not. */
    public static final class Writer implements AutoCloseable {
        private long handle;

        private Writer(long handle) {
            this.handle = handle;
        }

        /** Opens a writer; the engine validates the options (unknown ones are rejected). */
        public static Writer create(Map<String, String> options) {
            ensureLoaded();
            byte[][] keys = new byte[options.size()][];
            byte[][] values = new byte[options.size()][];
            int i = 0;
            for (Map.Entry<String, String> e : options.entrySet()) {
                keys[i] = cBytes(e.getKey(), "option key");
                values[i] = cBytes(e.getValue(), "option " + e.getKey());
                i++;
            }
            return new Writer(writerOpen(keys, values));
        }

        public void addDocument(long rowId, String text) {
            if (text == null) {
                throw new NullPointerException("text");
            }
            writerAdd(requireOpen(), rowId, documentBytes(text));
        }

        /** Finalizes the archive and streams it to out. The writer is finished afterwards. */
        public void writeIndex(Output output) {
            if (output == null) {
                throw new NullPointerException("output");
            }
            long h = requireOpen();
            try {
                writerWrite(h, output);
            } finally {
                close();
            }
        }

        @Override
        public void close() {
            long h = handle;
            handle = 0;
            if (h != 0) {
                writerFree(h);
            }
        }

        private long requireOpen() {
            if (handle == 0) {
                throw new IllegalStateException("FullTextIndexWriter is closed");
            }
            return handle;
        }
    }

    /** What a full-text index reader searches with: an open engine reader. */
    public interface Searcher extends AutoCloseable {
        Hits search(String query, int limit);

        Hits search(String query, int limit, byte[] roaringFilter);

        @Override
        void close();
    }

    /**
     * An engine reader. Searches may run concurrently; close waits for them.
     *
     * <p>The limit handed to the engine is capped at the archive's document count (from the
     * archive's header): the engine sizes its top-k buffer by the limit, so a limit near {@code
     * Integer.MAX_VALUE} would make it abort the process on a failed allocation, while no search
     * can return more hits than the archive has documents, so the cap changes no result.
     */
    public static final class Reader implements Searcher {
        private final java.util.concurrent.locks.ReentrantReadWriteLock lock =
                new java.util.concurrent.locks.ReentrantReadWriteLock();
        private final long documentCount;
        private long handle;

        /** Opens the archive behind input; a malformed archive fails with the engine's text. */
        public Reader(Input input) {
            if (input == null) {
                throw new NullPointerException("input");
            }
            ensureLoaded();
            long h = readerOpen(input);
            try {
                this.documentCount = documentCount(input);
            } catch (IOException | RuntimeException e) {
                readerFree(h);
                throw new RuntimeException("Failed to read the full-text archive header", e);
            }
            this.handle = h;
        }

        /** The document count of the archive's header (docs/storage-format.md of the engine). */
        private static long documentCount(Input input) throws IOException {
            byte[] prefix = new byte[16];
            input.pread(0, prefix, 0, prefix.length);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(prefix);
            byte[] magic = new byte[8];
            b.get(magic);
            if (!"PFTIDX01".equals(new String(magic, StandardCharsets.US_ASCII))) {
                throw new IOException("not a full-text archive");
            }
            b.getInt(); // version, checked by the engine
            long length = Integer.toUnsignedLong(b.getInt());
            if (length > (16 << 20)) {
                throw new IOException("full-text archive header of " + length + " bytes");
            }
            byte[] header = new byte[(int) length];
            input.pread(16, header, 0, header.length);
            org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode json =
                    new org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper()
                            .readTree(header);
            org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode count =
                    json.path("metadata").path("document_count");
            if (!count.canConvertToLong() || count.asLong() < 0) {
                throw new IOException("full-text archive header has no document count");
            }
            return count.asLong();
        }

        /** The number of documents in the archive. */
        public long documentCount() {
            return documentCount;
        }

        @Override
        public Hits search(String query, int limit) {
            return search(query, limit, null);
        }

        /** Searches the rows in the portable 64-bit roaring filter only (null: all rows). */
        @Override
        public Hits search(String query, int limit, byte[] roaringFilter) {
            if (query == null) {
                throw new NullPointerException("query");
            }
            if (limit <= 0) {
                throw new IllegalArgumentException("search limit must be positive");
            }
            lock.readLock().lock();
            try {
                if (handle == 0) {
                    throw new IllegalStateException("FullTextIndexReader is closed");
                }
                int engineLimit = (int) Math.max(1, Math.min(limit, documentCount));
                return (Hits) readerSearch(handle, cBytes(query, "query"), engineLimit, roaringFilter);
            } finally {
                lock.readLock().unlock();
            }
        }

        @Override
        public void close() {
            lock.writeLock().lock();
            try {
                long h = handle;
                handle = 0;
                if (h != 0) {
                    readerFree(h);
                }
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    // Called by the shim to build a result.
    private static Object hits(long[] rowIds, float[] scores) {
        return new Hits(rowIds, scores);
    }

    private static native void load(String enginePath);

    private static native long writerOpen(byte[][] keys, byte[][] values);

    private static native void writerAdd(long writer, long rowId, byte[] text);

    private static native void writerWrite(long writer, Output output);

    private static native void writerFree(long writer);

    private static native long readerOpen(Input input);

    private static native Object readerSearch(long reader, byte[] query, int limit, byte[] filter);

    private static native void readerFree(long reader);
}
