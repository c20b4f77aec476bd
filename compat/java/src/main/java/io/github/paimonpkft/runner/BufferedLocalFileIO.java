package io.github.paimonpkft.runner;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;

/**
 * Paimon's LocalFileIO with its input streams buffered. LocalFileIO reads a file through an
 * unbuffered FileInputStream, and Avro's DataFileReader (manifests, manifest lists) reads some of
 * a file a byte at a time: one system call a byte (72 of the Java runners' 159 s of CPU in the
 * table differential were the kernel's). The bytes read are the file's either way; only the number
 * of system calls changes. Writes, listings and renames are LocalFileIO's.
 */
final class BufferedLocalFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    /** The buffer of each input stream: large enough for a manifest's blocks, small per stream. */
    static final int BUFFER_SIZE = 64 * 1024;

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        return new BufferedSeekableInputStream(super.newInputStream(path), BUFFER_SIZE);
    }

    /**
     * A read buffer over a seekable stream: reads inside the buffered range are served from it, a
     * seek only moves the position, and a read past the range refills the buffer from the
     * position (reads of a whole buffer or more go to the stream directly).
     */
    static final class BufferedSeekableInputStream extends SeekableInputStream {

        private final SeekableInputStream in;
        private final byte[] buf;
        /** The file position of buf[0], and how many bytes of buf are valid. */
        private long bufStart;

        private int bufLen;
        /** The position of the next read. */
        private long pos;

        BufferedSeekableInputStream(SeekableInputStream in, int size) throws IOException {
            this.in = in;
            this.buf = new byte[size];
            this.pos = in.getPos();
            this.bufStart = pos;
        }

        @Override
        public void seek(long desired) throws IOException {
            if (desired < 0) {
                throw new IOException("seek to a negative position " + desired);
            }
            pos = desired;
        }

        @Override
        public long getPos() {
            return pos;
        }

        /** Makes pos fall inside the buffer, reading from pos; false at the end of the file. */
        private boolean fill() throws IOException {
            if (pos >= bufStart && pos < bufStart + bufLen) {
                return true;
            }
            in.seek(pos);
            int n = in.read(buf, 0, buf.length);
            bufStart = pos;
            bufLen = Math.max(n, 0);
            return bufLen > 0;
        }

        @Override
        public int read() throws IOException {
            if (!fill()) {
                return -1;
            }
            return buf[(int) (pos++ - bufStart)] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (off < 0 || len < 0 || len > b.length - off) {
                throw new IndexOutOfBoundsException();
            }
            if (len == 0) {
                return 0;
            }
            boolean buffered = pos >= bufStart && pos < bufStart + bufLen;
            if (!buffered && len >= buf.length) {
                in.seek(pos);
                int n = in.read(b, off, len);
                if (n > 0) {
                    pos += n;
                }
                return n;
            }
            if (!fill()) {
                return -1;
            }
            int n = (int) Math.min(len, bufStart + bufLen - pos);
            System.arraycopy(buf, (int) (pos - bufStart), b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
