package io.github.paimonpkft.fulltext;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.globalindex.GlobalIndexIOMeta;
import org.apache.paimon.globalindex.ResultEntry;
import org.apache.paimon.globalindex.io.GlobalIndexFileReader;
import org.apache.paimon.globalindex.io.GlobalIndexFileWriter;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.paimon.shade.guava30.com.google.common.util.concurrent.MoreExecutors;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.type.TypeReference;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Helpers shared by the stand-in tests: file writer/reader over a directory, queries, meta. */
final class TestArchives {

    private TestArchives() {}

    static GlobalIndexFileWriter fileWriter(FileIO fileIO, Path dir) {
        return new GlobalIndexFileWriter() {
            @Override
            public String newFileName(String prefix) {
                return prefix + "-" + UUID.randomUUID();
            }

            @Override
            public PositionOutputStream newOutputStream(String fileName) throws IOException {
                return fileIO.newOutputStream(new Path(dir, fileName), false);
            }
        };
    }

    static GlobalIndexFileReader fileReader(FileIO fileIO) {
        return meta -> fileIO.newInputStream(meta.filePath());
    }

    static List<GlobalIndexIOMeta> ioMetas(FileIO fileIO, List<ResultEntry> results, Path dir)
            throws IOException {
        assertEquals(1, results.size());
        ResultEntry result = results.get(0);
        Path file = new Path(dir, result.fileName());
        return Collections.singletonList(
                new GlobalIndexIOMeta(file, fileIO.getFileSize(file), result.meta()));
    }

    static ExecutorService direct() {
        return MoreExecutors.newDirectExecutorService();
    }

    static Map<String, String> options(byte[] meta) {
        return JsonSerdeUtil.fromJson(
                new String(meta, StandardCharsets.UTF_8),
                new TypeReference<Map<String, String>>() {});
    }

    static String match(String terms) {
        return "{\"match\":{\"query\":\"" + terms + "\"}}";
    }

    static String boost(String positive, String negative, float negativeBoost) {
        return "{\"boost\":{\"positive\":"
                + match(positive)
                + ",\"negative\":"
                + match(negative)
                + ",\"negative_boost\":"
                + negativeBoost
                + "}}";
    }
}
