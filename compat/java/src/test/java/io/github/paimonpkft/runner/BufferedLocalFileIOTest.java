package io.github.paimonpkft.runner;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.SeekableInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** BufferedLocalFileIO's streams read what LocalFileIO's read, at every seek and read size. */
class BufferedLocalFileIOTest {

    @TempDir File dir;

    @Test
    void readsTheFileAsWritten() throws Exception {
        int size = 3 * BufferedLocalFileIO.BUFFER_SIZE + 12345;
        byte[] data = new byte[size];
        Random rnd = new Random(7);
        rnd.nextBytes(data);
        File f = new File(dir, "f");
        Files.write(f.toPath(), data);
        BufferedLocalFileIO io = new BufferedLocalFileIO();

        // Byte by byte, then in one read: the whole file.
        try (SeekableInputStream in = io.newInputStream(new Path(f.getPath()))) {
            for (int i = 0; i < size; i++) {
                assertEquals(data[i] & 0xff, in.read(), "byte " + i);
            }
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(new byte[4], 0, 4));
            in.seek(0);
            byte[] all = new byte[size + 10];
            int n = 0;
            for (int r; n < all.length && (r = in.read(all, n, all.length - n)) > 0; ) {
                n += r;
            }
            assertEquals(size, n);
            assertArrayEquals(data, Arrays.copyOf(all, n));
        }

        // Random seeks and reads of every size, small and past the buffer, against the bytes.
        try (SeekableInputStream in = io.newInputStream(new Path(f.getPath()))) {
            for (int step = 0; step < 5000; step++) {
                long pos = rnd.nextInt(size + 100);
                if (rnd.nextBoolean()) {
                    in.seek(pos);
                } else {
                    pos = in.getPos();
                }
                assertEquals(pos, in.getPos());
                if (rnd.nextInt(3) == 0) {
                    int c = in.read();
                    assertEquals(pos < size ? data[(int) pos] & 0xff : -1, c, "read() at " + pos);
                    assertEquals(pos < size ? pos + 1 : pos, in.getPos());
                    continue;
                }
                int len = rnd.nextInt(4) == 0 ? rnd.nextInt(2 * BufferedLocalFileIO.BUFFER_SIZE) : rnd.nextInt(40);
                byte[] b = new byte[len + 3];
                int n = in.read(b, 3, len);
                if (len == 0) {
                    assertEquals(0, n);
                    continue;
                }
                if (pos >= size) {
                    assertEquals(-1, n, "read at the end, position " + pos);
                    continue;
                }
                long want = Math.min(len, size - pos);
                if (n < 1 || n > want) {
                    throw new AssertionError("read " + n + " bytes at " + pos + ", want 1.." + want);
                }
                assertArrayEquals(
                        Arrays.copyOfRange(data, (int) pos, (int) pos + n),
                        Arrays.copyOfRange(b, 3, 3 + n),
                        "bytes at " + pos);
                assertEquals(pos + n, in.getPos());
            }
            assertThrows(java.io.IOException.class, () -> in.seek(-1));
        }
    }
}
