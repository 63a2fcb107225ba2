package dev.fivehundred.check;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fivehundred.client.ApiClient;
import dev.fivehundred.client.ApiException;
import dev.fivehundred.client.ApiResponse;
import dev.fivehundred.client.api.GamesApi;
import dev.fivehundred.client.api.SessionsApi;
import dev.fivehundred.client.model.ApplyRequest;
import dev.fivehundred.client.model.ApplyResponse;
import dev.fivehundred.client.model.CreateGameRequest;
import dev.fivehundred.client.model.CreateGameResponse;
import dev.fivehundred.client.model.CreateSessionRequest;
import dev.fivehundred.client.model.LegalMovesRequest;
import dev.fivehundred.client.model.LegalMovesResponse;
import dev.fivehundred.client.model.MoveApplied;
import dev.fivehundred.client.model.MoveRequest;
import dev.fivehundred.client.model.MoveRequestMove;
import dev.fivehundred.client.model.ProblemDetails;
import dev.fivehundred.client.model.SessionCreated;
import dev.fivehundred.client.model.SessionLegalMoves;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scenario through the Java client openapi-generator made from openapi/openapi.json ({@code library=native}:
 * the JDK's own java.net.http.HttpClient with its defaults, so every plain-http request offers
 * {@code Upgrade: h2c}). Run by tests/clients/test_clients.py as {@code java dev.fivehundred.check.Play <base url>
 * <scenario json>}; prints one {@code REPORT <json>} line of what it observed.
 */
public final class Play {
    private Play() {}

    private static String header(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
            if (entry.getKey() != null && entry.getKey().equalsIgnoreCase(name) && !entry.getValue().isEmpty()) {
                return entry.getValue().get(0);
            }
        }
        return null;
    }

    private static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    private static List<Map<String, String>> parseSse(String text) {
        List<Map<String, String>> frames = new ArrayList<>();
        for (String block : text.replace("\r\n", "\n").split("\n\n")) {
            Map<String, String> fields = new LinkedHashMap<>();
            for (String line : block.split("\n")) {
                if (line.isEmpty() || line.startsWith(":")) {
                    continue;
                }
                int colon = line.indexOf(':');
                String name = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1);
                fields.put(name, value.startsWith(" ") ? value.substring(1) : value);
            }
            if (!fields.isEmpty()) {
                frames.add(fields);
            }
        }
        return frames;
    }

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        // The HttpClient exactly as the generated ApiClient builds it by default (HTTP/2 preferred: h2c upgrade).
        ApiClient api = new ApiClient(HttpClient.newBuilder(), ApiClient.createDefaultObjectMapper(), baseUrl);
        api.setReadTimeout(Duration.ofSeconds(30));
        ObjectMapper mapper = api.getObjectMapper();
        Map<String, Object> scenario = mapper.readValue(args[1], new TypeReference<Map<String, Object>>() {});
        GamesApi games = new GamesApi(api);
        SessionsApi sessions = new SessionsApi(api);
        Map<String, Object> report = new LinkedHashMap<>();

        // The stateless API: create, list legal moves, apply, and an illegal move's problem.
        CreateGameResponse game = games.createGame(GamesApi.APICreateGameRequest.newBuilder()
                .createGameRequest(mapper.convertValue(scenario.get("game"), CreateGameRequest.class)).build());
        report.put("game", Map.of("phase", String.valueOf(game.getPhase()), "to_act", game.getToAct(),
                "snapshot_chars", game.getSnapshot().length(), "options", mapper.convertValue(game.getOptions(),
                        new TypeReference<Map<String, Object>>() {})));
        LegalMovesRequest listRequest = new LegalMovesRequest();
        listRequest.setSnapshot(game.getSnapshot());
        LegalMovesResponse listed = games.legalMoves(GamesApi.APILegalMovesRequest.newBuilder()
                .legalMovesRequest(listRequest).build());
        report.put("legal", Map.of("count", listed.getLegalMoves().size(), "first",
                mapper.convertValue(listed.getLegalMoves().get(0), new TypeReference<Map<String, Object>>() {})));
        Map<String, Object> apply = new LinkedHashMap<>();
        apply.put("snapshot", game.getSnapshot());
        apply.put("move", scenario.get("legal_move"));
        ApplyResponse applied = games.applyMove(GamesApi.APIApplyMoveRequest.newBuilder()
                .applyRequest(mapper.convertValue(apply, ApplyRequest.class)).build());
        List<Object> eventTypes = new ArrayList<>();
        for (Object event : applied.getEvents()) {
            eventTypes.add(mapper.convertValue(event, new TypeReference<Map<String, Object>>() {}).get("type"));
        }
        report.put("applied", Map.of("to_act", applied.getToAct(), "events", eventTypes));
        apply.put("move", scenario.get("illegal_move"));
        try {
            games.applyMove(GamesApi.APIApplyMoveRequest.newBuilder()
                    .applyRequest(mapper.convertValue(apply, ApplyRequest.class)).build());
            throw new IllegalStateException("the illegal move was applied");
        } catch (ApiException refused) {
            ProblemDetails problem = mapper.readValue(refused.getResponseBody(), ProblemDetails.class);
            Map<String, Object> illegal = new LinkedHashMap<>();
            illegal.put("status", refused.getCode());
            illegal.put("code", problem.getCode());
            illegal.put("reason", problem.getReason() == null ? null : String.valueOf(problem.getReason()));
            illegal.put("content_type", refused.getResponseHeaders().firstValue("content-type").orElse(null));
            report.put("illegal", illegal);
        }

        // A hosted session played to its end through each seat's token, every move with If-Match.
        ApiResponse<SessionCreated> made = sessions.createSessionWithHttpInfo(
                SessionsApi.APICreateSessionRequest.newBuilder().createSessionRequest(
                        mapper.convertValue(scenario.get("session"), CreateSessionRequest.class)).build());
        SessionCreated session = made.getData();
        Map<String, Object> created = new LinkedHashMap<>();
        created.put("status", made.getStatusCode());
        created.put("etag", header(made.getHeaders(), "etag"));
        created.put("location", header(made.getHeaders(), "location"));
        created.put("version", session.getVersion());
        created.put("seats", session.getSeatTokens().size());
        report.put("session", created);
        int version = session.getVersion();
        Integer toAct = session.getToAct();
        String phase = String.valueOf(session.getPhase());
        List<Map<String, Object>> moves = new ArrayList<>();
        while (toAct != null) {
            Map<String, String> seat = bearer(session.getSeatTokens().get(toAct));
            SessionLegalMoves legal = sessions.getSessionLegalMoves(SessionsApi.APIGetSessionLegalMovesRequest.newBuilder()
                    .sessionId(session.getSessionId()).build(), seat);
            MoveRequest body = new MoveRequest();
            // A listed move is sent as the session's move type (whose seat may be left out): the same JSON.
            body.setMove(mapper.convertValue(legal.getLegalMoves().get(0), MoveRequestMove.class));
            ApiResponse<MoveApplied> answer = sessions.applySessionMoveWithHttpInfo(
                    SessionsApi.APIApplySessionMoveRequest.newBuilder().sessionId(session.getSessionId())
                            .moveRequest(body).ifMatch("\"" + version + "\"").build(), seat);
            MoveApplied moved = answer.getData();
            Map<String, Object> move = new LinkedHashMap<>();
            move.put("if_match", version);
            move.put("etag", header(answer.getHeaders(), "etag"));
            move.put("version", moved.getVersion());
            moves.add(move);
            version = moved.getVersion();
            phase = String.valueOf(moved.getPhase());
            toAct = moved.getToAct();
        }
        report.put("moves", moves);
        report.put("final_phase", phase);

        // The host's event stream, read to its end (it ends by itself once the game is over).
        // openapi-generator's native client parses every `type: string` body that is not
        // text/plain as JSON, so its streamSessionEvents cannot read text/event-stream (docs/API.md, "Generated
        // clients"). A Java client follows the stream line by line through the generated ApiClient's own
        // HttpClient, base URI and settings, as here, read to the stream's end.
        HttpRequest request = HttpRequest.newBuilder(URI.create(api.getBaseUri() + "/v1/sessions/"
                        + ApiClient.urlEncode(session.getSessionId()) + "/events"))
                .header("Authorization", "Bearer " + session.getHostToken())
                .header("Accept", "text/event-stream").GET().build();
        HttpResponse<java.util.stream.Stream<String>> stream = api.getHttpClient().send(request,
                HttpResponse.BodyHandlers.ofLines());
        String text = String.join("\n", (Iterable<String>) stream.body()::iterator) + "\n";
        Map<String, Object> events = new LinkedHashMap<>();
        events.put("status", stream.statusCode());
        events.put("content_type", stream.headers().firstValue("content-type").orElse(null));
        events.put("frames", parseSse(text));
        report.put("stream", events);
        System.out.println("REPORT " + mapper.writeValueAsString(report));
    }
}
