package io.github.paimonpkft.fulltext;

import org.apache.paimon.fs.ByteArraySeekableStream;
import org.apache.paimon.fs.Path;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.predicate.FullTextSearch;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Collections;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviours of Paimon's {@code NativeFullTextGlobalIndexReaderTest} (release-2.0.0): the
 * reader's resource lifecycle. Paimon mocks the JNI reader with Mockito; here a recording test
 * double stands in for the engine reader.
 */
class NativeFullTextGlobalIndexReaderTest {

    @Test
    void testInitializationFailurePreservesOriginalExceptionWhenCleanupThrowsUnchecked() {
        RuntimeException closeFailure = new RuntimeException("input close failure");
        TestingStream input = new TestingStream(new byte[64], closeFailure);
        NativeFullTextGlobalIndexReader reader = reader(input);

        CompletionException failure =
                assertThrows(
                        CompletionException.class,
                        () -> reader.visitFullTextSearch(new FullTextSearch("text", "{}", 1)).join());

        Throwable open = failure.getCause();
        assertInstanceOf(RuntimeException.class, open);
        assertTrue(open.getMessage().contains("invalid storage format"), open.getMessage());
        assertArrayEquals(new Throwable[] {closeFailure}, open.getSuppressed());
        assertEquals(1, input.closeCalls);

        assertDoesNotThrow(reader::close);
        assertEquals(1, input.closeCalls);
    }

    @Test
    void testCloseAttemptsAllResourcesWhenReaderCloseThrowsError() throws Exception {
        NativeFullTextGlobalIndexReader reader = reader(new TestingStream(new byte[1], null));
        UnsatisfiedLinkError readerCloseFailure = new UnsatisfiedLinkError("reader close failure");
        FailingSearcher engineReader = new FailingSearcher(readerCloseFailure);
        IOException inputCloseFailure = new IOException("input close failure");
        TestingStream input = new TestingStream(new byte[1], inputCloseFailure);
        set(reader, "reader", engineReader);
        set(reader, "inputStream", input);

        Throwable failure = assertThrows(Throwable.class, reader::close);

        assertSame(readerCloseFailure, failure);
        assertArrayEquals(new Throwable[] {inputCloseFailure}, failure.getSuppressed());
        assertEquals(1, input.closeCalls);

        assertDoesNotThrow(reader::close);
        assertEquals(1, engineReader.closeCalls);
        assertEquals(1, input.closeCalls);
    }

    private static NativeFullTextGlobalIndexReader reader(TestingStream input) {
        GlobalIndexIOMeta meta = new GlobalIndexIOMeta(new Path("file:///unused"), 64L, new byte[0]);
        return new NativeFullTextGlobalIndexReader(
                ignored -> input, Collections.singletonList(meta), TestArchives.direct());
    }

    private static void set(NativeFullTextGlobalIndexReader reader, String name, Object value)
            throws ReflectiveOperationException {
        Field field = NativeFullTextGlobalIndexReader.class.getDeclaredField(name);
        field.setAccessible(true);
        field.set(reader, value);
    }

    /** An engine reader whose close fails. */
    private static final class FailingSearcher implements FtIndexEngine.Searcher {
        private final Error closeFailure;
        private int closeCalls;

        FailingSearcher(Error closeFailure) {
            this.closeFailure = closeFailure;
        }

        @Override
        public FtIndexEngine.Hits search(String query, int limit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FtIndexEngine.Hits search(String query, int limit, byte[] roaringFilter) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            closeCalls++;
            throw closeFailure;
        }
    }

    /** A stream counting its closes, failing them with the given throwable. */
    static final class TestingStream extends ByteArraySeekableStream {
        private final Throwable closeFailure;
        int closeCalls;

        TestingStream(byte[] bytes, Throwable closeFailure) {
            super(bytes);
            this.closeFailure = closeFailure;
        }

        @Override
        public void close() throws IOException {
            closeCalls++;
            if (closeFailure instanceof IOException) {
                throw (IOException) closeFailure;
            } else if (closeFailure instanceof RuntimeException) {
                throw (RuntimeException) closeFailure;
            } else if (closeFailure instanceof Error) {
                throw (Error) closeFailure;
            }
            super.close();
        }
    }
}
