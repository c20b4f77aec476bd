package io.github.paimonpkft.fulltext;

import org.apache.paimon.globalindex.ScoreGetter;
import org.apache.paimon.globalindex.ScoredGlobalIndexResult;
import org.apache.paimon.utils.RoaringNavigableMap64;

import java.util.Map;

/**
 * Stand-in for Paimon's {@code
 * org.apache.paimon.fulltext.index.NativeFullTextScoredGlobalIndexResult} (module {@code
 * paimon-full-text} 2.0.0, not served by the Maven registry reachable here): the row ids one
 * search hit, with the engine's score of each. Asking for the score of a row the search did not
 * return is an error.
 */
public class NativeFullTextScoredGlobalIndexResult implements ScoredGlobalIndexResult {

    private final RoaringNavigableMap64 results;
    private final Map<Long, Float> id2scores;

    public NativeFullTextScoredGlobalIndexResult(
            RoaringNavigableMap64 results, Map<Long, Float> id2scores) {
        this.results = results;
        this.id2scores = id2scores;
    }

    @Override
    public ScoreGetter scoreGetter() {
        return rowId -> {
            Float score = id2scores.get(rowId);
            if (score == null) {
                throw new IllegalArgumentException(
                        "No score found for rowId: "
                                + rowId
                                + ". Only rowIds present in results() are valid.");
            }
            return score;
        };
    }

    @Override
    public RoaringNavigableMap64 results() {
        return results;
    }
}
