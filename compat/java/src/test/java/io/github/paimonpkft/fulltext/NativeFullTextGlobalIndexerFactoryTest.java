package io.github.paimonpkft.fulltext;

import org.apache.paimon.globalindex.GlobalIndexer;
import org.apache.paimon.globalindex.GlobalIndexerFactoryUtils;
import org.apache.paimon.options.Options;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The behaviours of Paimon's {@code NativeFullTextGlobalIndexerFactoryTest} (release-2.0.0). */
class NativeFullTextGlobalIndexerFactoryTest {

    @Test
    void testFactoryAcceptsFullTextSearcherPoolOption() {
        NativeFullTextGlobalIndexerFactory factory = new NativeFullTextGlobalIndexerFactory();
        DataField field = new DataField(0, "text", DataTypes.STRING());
        Options options = new Options();
        options.set("full-text.searcher-pool.max-size", "0");

        GlobalIndexer indexer = factory.create(field, options);

        assertInstanceOf(NativeFullTextGlobalIndexer.class, indexer);
    }

    /** Runner-only: Paimon's core finds the stand-in through the service registration. */
    @Test
    void testServiceRegistrationServesFullText() {
        assertInstanceOf(
                NativeFullTextGlobalIndexerFactory.class, GlobalIndexerFactoryUtils.load("full-text"));
        assertEquals("full-text", new NativeFullTextGlobalIndexerFactory().identifier());
        assertTrue(new NativeFullTextGlobalIndexerFactory().supportsFullTextSearch());
    }
}
