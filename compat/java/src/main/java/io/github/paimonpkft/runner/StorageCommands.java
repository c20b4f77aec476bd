package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.conf.Configuration;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.hadoop.HadoopFileIO;
import org.apache.paimon.options.Options;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where tables live: local paths through Paimon's LocalFileIO, s3a://bucket/... through Paimon's
 * HadoopFileIO over Hadoop's S3AFileSystem (hadoop-aws), which is what Paimon falls back to for
 * the s3a scheme without its own S3 plugin. configure-s3 registers a bucket's endpoint and
 * credentials, as Hadoop's per-bucket options fs.s3a.bucket.BUCKET.*; every later command opening
 * a table in that bucket uses them.
 */
final class StorageCommands {

    /** Hadoop options of the registered buckets. */
    private static final Map<String, String> S3A = new ConcurrentHashMap<>();

    private StorageCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("configure-s3", StorageCommands::configureS3);
    }

    /**
     * args: bucket, endpoint, accessKey, secretKey, pathStyle (default true), region (default
     * us-east-1). Result: {bucket}.
     */
    private static JsonNode configureS3(JsonNode args) {
        String bucket = args.path("bucket").asText("");
        String endpoint = args.path("endpoint").asText("");
        if (bucket.isEmpty() || endpoint.isEmpty()) {
            throw new IllegalArgumentException("args.bucket and args.endpoint are required");
        }
        String p = "fs.s3a.bucket." + bucket + ".";
        S3A.put(p + "endpoint", endpoint);
        S3A.put(p + "endpoint.region", args.path("region").asText("us-east-1"));
        S3A.put(p + "access.key", args.path("accessKey").asText(""));
        S3A.put(p + "secret.key", args.path("secretKey").asText(""));
        S3A.put(p + "path.style.access", String.valueOf(args.path("pathStyle").asBoolean(true)));
        S3A.put(p + "connection.ssl.enabled", String.valueOf(endpoint.startsWith("https:")));
        S3A.put(p + "aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        return Main.JSON.createObjectNode().put("bucket", bucket);
    }

    /** The Hadoop configuration carrying every registered bucket's options. */
    static Configuration hadoopConf() {
        Configuration conf = new Configuration();
        // One attempt per request and short timeouts: the server is local, a failure is a failure.
        conf.set("fs.s3a.attempts.maximum", "3");
        conf.set("fs.s3a.retry.limit", "3");
        S3A.forEach(conf::set);
        return conf;
    }

    static boolean isS3a(String path) {
        return path.toLowerCase(Locale.ROOT).startsWith("s3a://");
    }

    /**
     * The FileIO for a table path: HadoopFileIO for s3a://, LocalFileIO (its reads buffered,
     * BufferedLocalFileIO) otherwise.
     */
    static FileIO fileIO(String path) {
        if (!isS3a(path)) {
            return new BufferedLocalFileIO();
        }
        HadoopFileIO io = new HadoopFileIO(new Path(path));
        io.configure(CatalogContext.create(new Options(), hadoopConf()));
        return io;
    }

    /** The catalog context of a warehouse (with the Hadoop configuration for s3a warehouses). */
    static CatalogContext catalogContext(Options options) {
        return CatalogContext.create(options, hadoopConf());
    }
}
