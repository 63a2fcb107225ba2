// The scenario through the packaged TypeScript client (five-hundred-referee-client: openapi-fetch typed by
// openapi-typescript from openapi/openapi.json, built and packed by clients/generate.py and unpacked into this
// project's node_modules by tests/clients/generate.py). Compiled with tsc --strict and run with node by
// tests/clients/test_clients.py: node dist/play.js <base url> <scenario json>. It prints one "REPORT <json>"
// line of what it observed; the test compares that with the reference.
import { createRefereeClient, type components } from "five-hundred-referee-client";

type Schemas = components["schemas"];
type Move = Schemas["LegalMovesResponse"]["legal_moves"][number];
interface Scenario {
  game: Schemas["CreateGameRequest"];
  legal_move: Schemas["ApplyRequest"]["move"];
  illegal_move: Schemas["ApplyRequest"]["move"];
  session: Schemas["CreateSessionRequest"];
}
interface Frame { [field: string]: string }

function parseSse(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.replace(/\r\n/g, "\n").split("\n\n")) {
    const fields: Frame = {};
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1);
      fields[name] = value.startsWith(" ") ? value.slice(1) : value;
    }
    if (Object.keys(fields).length > 0) frames.push(fields);
  }
  return frames;
}

function must<T>(value: T | undefined, what: string, detail?: unknown): T {
  if (value === undefined) throw new Error(`${what} failed: ${JSON.stringify(detail)}`);
  return value;
}

async function main(): Promise<void> {
  const [baseUrl, scenarioJson] = process.argv.slice(2);
  const scenario = JSON.parse(must(scenarioJson, "arguments")) as Scenario;
  const client = createRefereeClient(must(baseUrl, "arguments"));
  const report: Record<string, unknown> = {};

  // The stateless API: create, list legal moves, apply, and an illegal move's problem.
  const created = await client.POST("/v1/games", { body: scenario.game });
  const game = must(created.data, "createGame", created.error);
  report.game = { phase: game.phase, to_act: game.to_act, snapshot_chars: game.snapshot.length,
                  options: game.options };
  const listed = await client.POST("/v1/games/legal-moves", { body: { snapshot: game.snapshot } });
  const moves = must(listed.data, "legalMoves", listed.error).legal_moves;
  report.legal = { count: moves.length, first: moves[0] };
  const applied = await client.POST("/v1/games/apply",
                                    { body: { snapshot: game.snapshot, move: scenario.legal_move } });
  const next = must(applied.data, "applyMove", applied.error);
  report.applied = { to_act: next.to_act, events: next.events.map((e) => e.type) };
  const refused = await client.POST("/v1/games/apply",
                                    { body: { snapshot: game.snapshot, move: scenario.illegal_move } });
  if (refused.error === undefined) throw new Error("the illegal move was applied");
  const problem: Schemas["ProblemDetails"] = refused.error;
  report.illegal = { status: refused.response.status, code: problem.code, reason: problem.reason ?? null,
                     content_type: refused.response.headers.get("content-type") };

  // A hosted session played to its end through each seat's token, every move with If-Match.
  const made = await client.POST("/v1/sessions", { body: scenario.session });
  const session = must(made.data, "create_session", made.error);
  report.session = { status: made.response.status, etag: made.response.headers.get("etag"),
                     location: made.response.headers.get("location"), version: session.version,
                     seats: session.seat_tokens.length };
  const path = { session_id: session.session_id };
  const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
  let version = session.version;
  let toAct: number | null = session.to_act;
  let phase: string = session.phase;
  const played: unknown[] = [];
  while (toAct !== null) {
    const token = session.seat_tokens[toAct];  // null for a seat a computer player takes
    if (token === undefined || token === null) throw new Error(`seat ${toAct} has no token`);
    const legal = await client.GET("/v1/sessions/{session_id}/legal-moves",
                                   { params: { path }, headers: bearer(token) });
    const move: Move = must(must(legal.data, "get_session_legal_moves", legal.error).legal_moves[0], "a legal move");
    const answer = await client.POST("/v1/sessions/{session_id}/moves", {
      params: { path, header: { "If-Match": `"${version}"` } }, headers: bearer(token), body: { move },
    });
    const moved = must(answer.data, "apply_session_move", answer.error);
    played.push({ if_match: version, etag: answer.response.headers.get("etag"), version: moved.version });
    version = moved.version;
    phase = moved.phase;
    toAct = moved.to_act;
  }
  report.moves = played;
  report.final_phase = phase;

  // The host's event stream, read to its end (it ends by itself once the game is over).
  const stream = await client.GET("/v1/sessions/{session_id}/events",
                                  { params: { path }, headers: bearer(session.host_token), parseAs: "text" });
  const text = must(stream.data, "stream_session_events", stream.error);
  report.stream = { status: stream.response.status, content_type: stream.response.headers.get("content-type"),
                    frames: parseSse(text) };
  console.log("REPORT " + JSON.stringify(report));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
