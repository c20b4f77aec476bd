package io.github.paimonpkft.fulltext;

import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.GlobalIndexReader;
import org.apache.paimon.globalindex.GlobalIndexResult;
import org.apache.paimon.globalindex.ScoredGlobalIndexResult;
import org.apache.paimon.globalindex.io.GlobalIndexFileReader;
import org.apache.paimon.predicate.FieldRef;
import org.apache.paimon.predicate.FullTextSearch;
import org.apache.paimon.utils.ExceptionUtils;
import org.apache.paimon.utils.RoaringNavigableMap64;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * Stand-in for Paimon's {@code org.apache.paimon.fulltext.index.NativeFullTextGlobalIndexReader}
 * (module {@code paimon-full-text} 2.0.0, not served by the Maven registry reachable here):
 * searches one archive through the engine ({@link FtIndexEngine}).
 *
 * <p>The archive is opened on the first search (on the executor), reading through the file
 * reader's stream with positioned reads and no temporary file; an open failure closes the stream
 * (its own close failure suppressed into the open failure). A search with an empty row id filter
 * returns an empty result without searching; a non-empty filter crosses to the engine as the
 * filter's serialized bitmap, so the engine ranks within it before the limit applies. Only
 * full-text search is supported; every other predicate returns no result. {@link #close()}
 * closes the engine reader and the stream, attempting both and raising the first failure with
 * the other suppressed.
 */
public class NativeFullTextGlobalIndexReader implements GlobalIndexReader {

    private final GlobalIndexIOMeta ioMeta;
    private final GlobalIndexFileReader fileReader;
    private final ExecutorService executor;

    private volatile FtIndexEngine.Searcher reader;
    private volatile SeekableInputStream inputStream;

    public NativeFullTextGlobalIndexReader(
            GlobalIndexFileReader fileReader,
            List<GlobalIndexIOMeta> ioMetas,
            ExecutorService executor) {
        if (ioMetas.size() != 1) {
            throw new IllegalArgumentException("Expected exactly one index file per shard");
        }
        this.executor = executor;
        this.fileReader = fileReader;
        this.ioMeta = ioMetas.get(0);
    }

    @Override
    public CompletableFuture<Optional<ScoredGlobalIndexResult>> visitFullTextSearch(
            FullTextSearch fullTextSearch) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        FtIndexEngine.Searcher searcher = open();
                        RoaringNavigableMap64 include = fullTextSearch.includeRowIds();
                        if (include != null && include.isEmpty()) {
                            return Optional.of(ScoredGlobalIndexResult.createEmpty());
                        }
                        FtIndexEngine.Hits hits =
                                include == null
                                        ? searcher.search(
                                                fullTextSearch.query(), fullTextSearch.limit())
                                        : searcher.search(
                                                fullTextSearch.query(),
                                                fullTextSearch.limit(),
                                                include.serialize());
                        return Optional.of(scored(hits));
                    } catch (IOException e) {
                        throw new RuntimeException("Failed to search native full-text index", e);
                    }
                },
                executor);
    }

    private static ScoredGlobalIndexResult scored(FtIndexEngine.Hits hits) {
        RoaringNavigableMap64 bitmap = new RoaringNavigableMap64();
        HashMap<Long, Float> scores = new HashMap<>(hits.size());
        for (int i = 0; i < hits.size(); i++) {
            long rowId = hits.rowIds()[i];
            bitmap.add(rowId);
            scores.put(rowId, hits.scores()[i]);
        }
        return new NativeFullTextScoredGlobalIndexResult(bitmap, scores);
    }

    private FtIndexEngine.Searcher open() throws IOException {
        FtIndexEngine.Searcher r = reader;
        if (r != null) {
            return r;
        }
        synchronized (this) {
            if (reader == null) {
                SeekableInputStream input = fileReader.getInputStream(ioMeta);
                try {
                    inputStream = input;
                    reader = new FtIndexEngine.Reader(new StreamInput(input));
                } catch (RuntimeException | Error e) {
                    inputStream = null;
                    closeResource(input, e);
                    throw e;
                }
            }
            return reader;
        }
    }

    @Override
    public void close() throws IOException {
        Throwable failure = null;
        try {
            failure = closeResource(reader, failure);
            failure = closeResource(inputStream, failure);
        } finally {
            reader = null;
            inputStream = null;
        }
        if (failure instanceof IOException) {
            throw (IOException) failure;
        } else if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        } else if (failure instanceof Error) {
            throw (Error) failure;
        } else if (failure != null) {
            throw new IOException("Failed to close native full-text index reader", failure);
        }
    }

    private static Throwable closeResource(AutoCloseable resource, Throwable failure) {
        try {
            if (resource != null) {
                resource.close();
            }
        } catch (Throwable closeFailure) {
            return ExceptionUtils.firstOrSuppressed(closeFailure, failure);
        }
        return failure;
    }

    /** Positioned reads over one stream; the engine's threads take turns. */
    private static final class StreamInput implements FtIndexEngine.Input {
        private final SeekableInputStream in;

        private StreamInput(SeekableInputStream in) {
            this.in = in;
        }

        @Override
        public synchronized void pread(long position, byte[] buffer, int offset, int length)
                throws IOException {
            in.seek(position);
            int end = offset + length;
            while (offset < end) {
                int n = in.read(buffer, offset, end - offset);
                if (n == -1) {
                    throw new IOException("Unexpected end of stream");
                }
                offset += n;
            }
        }
    }

    // Every predicate but full-text search: no result from this index.

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitIsNotNull(FieldRef fieldRef) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitIsNull(FieldRef fieldRef) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitStartsWith(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitEndsWith(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitContains(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitLike(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitLessThan(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitGreaterOrEqual(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitNotEqual(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitLessOrEqual(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitEqual(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitGreaterThan(
            FieldRef fieldRef, Object literal) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitIn(
            FieldRef fieldRef, List<Object> literals) {
        return none();
    }

    @Override
    public CompletableFuture<Optional<GlobalIndexResult>> visitNotIn(
            FieldRef fieldRef, List<Object> literals) {
        return none();
    }

    private static CompletableFuture<Optional<GlobalIndexResult>> none() {
        return CompletableFuture.completedFuture(Optional.empty());
    }
}
