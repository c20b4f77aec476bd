package io.github.paimonpkft.fulltext;

import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.GlobalIndexReader;
import org.apache.paimon.globalindex.GlobalIndexWriter;
import org.apache.paimon.globalindex.GlobalIndexer;
import org.apache.paimon.globalindex.io.GlobalIndexFileReader;
import org.apache.paimon.globalindex.io.GlobalIndexFileWriter;

import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Stand-in for Paimon's {@code org.apache.paimon.fulltext.index.NativeFullTextGlobalIndexer}
 * (module {@code paimon-full-text} 2.0.0, not served by the Maven registry reachable here): the
 * {@code full-text} global indexer, creating this package's writer with its options and its
 * reader over one archive.
 */
public class NativeFullTextGlobalIndexer implements GlobalIndexer {

    private final NativeFullTextIndexOptions indexOptions;

    public NativeFullTextGlobalIndexer(NativeFullTextIndexOptions indexOptions) {
        this.indexOptions = indexOptions;
    }

    public NativeFullTextGlobalIndexer() {
        this(NativeFullTextIndexOptions.defaults());
    }

    @Override
    public GlobalIndexWriter createWriter(GlobalIndexFileWriter fileWriter) {
        return new NativeFullTextGlobalIndexWriter(fileWriter, indexOptions);
    }

    @Override
    public GlobalIndexReader createReader(
            GlobalIndexFileReader fileReader,
            List<GlobalIndexIOMeta> files,
            ExecutorService executor) {
        return new NativeFullTextGlobalIndexReader(fileReader, files, executor);
    }
}
