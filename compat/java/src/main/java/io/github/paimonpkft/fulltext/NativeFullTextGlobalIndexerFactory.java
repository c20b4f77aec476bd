package io.github.paimonpkft.fulltext;

import org.apache.paimon.globalindex.GlobalIndexer;
import org.apache.paimon.globalindex.GlobalIndexerFactory;
import org.apache.paimon.options.Options;
import org.apache.paimon.types.DataField;

/**
 * Stand-in for Paimon's {@code
 * org.apache.paimon.fulltext.index.NativeFullTextGlobalIndexerFactory} (module {@code
 * paimon-full-text} 2.0.0, not served by the Maven registry reachable here), registered in the
 * runner jar's {@code META-INF/services/org.apache.paimon.globalindex.GlobalIndexerFactory} under
 * the identifier {@code full-text}: Paimon's core finds the full-text engine only through this
 * service. The indexer gets the {@code full-text.*} options with the prefix removed.
 */
public class NativeFullTextGlobalIndexerFactory implements GlobalIndexerFactory {

    /** The index type this factory serves. */
    public static final String IDENTIFIER = "full-text";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public boolean supportsFullTextSearch() {
        return true;
    }

    @Override
    public GlobalIndexer create(DataField field, Options options) {
        return new NativeFullTextGlobalIndexer(
                new NativeFullTextIndexOptions(
                        options.removePrefix(NativeFullTextIndexOptions.FULL_TEXT_PREFIX).toMap()));
    }
}
