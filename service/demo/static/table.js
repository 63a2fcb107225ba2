// @ts-check
/**
 * Five Hundred at a table in the browser: one human seat against the service's computer players, through the
 * public API only. It is the reference client: read it from the top.
 *
 *   1. api()            every HTTP call (JSON in and out, a bearer token, problems raised as ApiError)
 *   2. createSession()  POST /v1/sessions with bot seats; keep the tokens, they are shown once
 *   3. sendMove()       POST /v1/sessions/{id}/moves with If-Match and an Idempotency-Key, retried safely
 *   4. follow()         the seat's event stream (EventSource), resumed with Last-Event-ID after a reload
 *   5. rematch()        POST /v1/sessions/{id}/rematch with {game}: the table's next game, at the same seats
 *
 * Everything the table shows comes from the seat's own view (GET /v1/sessions/{id} with the seat token), its
 * legal moves and its own event stream: what the service lets that seat know, and nothing else. A join link first
 * shows the invitation's preview (GET /v1/sessions/{id}/invitation with the invitation's code), then asks for a
 * name. Under a turn clock, the time left counts down from the session's `clock` (its `deadline` minus this
 * device's clock, the reserve after the move's own limit).
 */

const params = new URLSearchParams(location.search);
/** The API's base URL: this page's origin, unless `?api=` names another (which must allow it by CORS). */
const API = (params.get("api") ?? "").replace(/\/$/, "");
/** An integrator API key, when the service requires one (`API_KEYS`); sent as `X-API-Key`. */
const API_KEY = params.get("api_key");
/** How long each computer player's move stays on screen before the next, in milliseconds. */
const STEP_MS = Number(params.get("step_ms") ?? 600);
/** How long to wait for the stream to bring the events of an answer before drawing the answer anyway. */
const CATCH_UP_MS = 4000;
const STORAGE_KEY = "fivehundred.table";
const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------------------ 1. HTTP

/** A problem answer (RFC 9457 `application/problem+json`): `code`, `detail`, and for a refused move `reason`. */
class ApiError extends Error {
  /** @param {number} status @param {any} problem */
  constructor(status, problem) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem ?? {};
  }
}

/**
 * One call to the API. A network failure rejects with a TypeError (fetch's own), an error answer with ApiError.
 * @param {string} method
 * @param {string} path
 * @param {{token?: string, body?: any, ifMatch?: number, idempotencyKey?: string}} [how]
 */
async function api(method, path, { token, body, ifMatch, idempotencyKey } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`; // a seat's token, or the host's
  if (ifMatch !== undefined) headers["If-Match"] = `"${ifMatch}"`; // the version the move was chosen at
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey; // makes a retry of this move harmless
  if (API_KEY) headers["X-API-Key"] = API_KEY;
  const response = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// ------------------------------------------------------------------------------------------- the game we hold

/**
 * What survives a reload (in localStorage): the session, our tokens, and every event received so far.
 * @typedef {{id: string, version: number, toAct: number|null, event: any}} Received
 * `seatToken` is our seat's token, or a spectator's when `watching` (then `seat` is only where the table is seen
 * from: a spectator sees what the public sees, and acts for nobody).
 * `joined`: the seat was taken by an invitation, at a table someone else hosts.
 * `tableHostToken`: at a table we created, its table host token, used for one thing only: starting the next game
 * (it reads nothing but the public view, and this page never reads with it).
 * @typedef {{sessionId: string, seat: number, seatToken: string, players: number, watching?: boolean,
 *            joined?: boolean, tableHostToken?: string, preset: string, level: string, lastEventId: string|null,
 *            events: Received[]}} Saved
 */
/** @type {Saved|null} */
let saved = null;
/** @type {any} the rules catalogue for this game (GET /v1/rules): bid ladder, score table, names */
let rules = null;
/** @type {{version: number, view: any, at: number}|null} the newest state known, as the seat sees it */
let latest = null;
/** @type {any[]} who holds each seat (`seats` of the session: a player's name, a bot, or open; `away`) */
let seatsInfo = [];
/** @type {{status: string, ended: any}} where the game is in its life (the session's `status`: `waiting`,
 *  `running`, `paused` or `ended`; `ended`: how it ended before it was over) */
let life = { status: "running", ended: null };
let tableVersion = 0; // the version `seatsInfo` and `life` are of
/** @type {any} the turn clock (the session's `clock`, public; null: none), and the version it is of */
let clockView = null;
let clockVersion = 0;
/** @type {any} the table's games (the session's `series`: game, match, match score, who asked for the next game),
 *  and the version it is of */
let series = null;
let seriesVersion = 0;
let rematching = false; // a request for the next game is on its way
/** @type {any[]} the seat's legal moves at latest.version (empty when it is not to act) */
let legal = [];
let shownVersion = 0; // every event up to this version has been shown (animated)
let drawnVersion = 0; // the version the table was last drawn from
/** @type {Received[]} */
const queue = []; // events received and not yet shown
let pumping = false;
let acting = false;
/** @type {EventSource|null} */
let source = null;
let streamEnded = false;
/** @type {{seat: number, card: string}[]} */
let trick = []; // the cards in the centre
const selected = new Set(); // the cards chosen to discard in the exchange
/** @type {Map<string, Promise<string>>} */
const reasons = new Map(); // why a bid is not legal now, by version and bid
let drawTicket = 0;
let renderTimer = 0;

const save = () => localStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
const base = () => `/v1/sessions/${saved?.sessionId}`;

// ---------------------------------------------------------------------------------- 2. creating a session

/**
 * A session with our seat 0 human and every other seat played by the service.
 * @param {HTMLFormElement} form
 * @returns {Promise<Saved>}
 */
async function createSession(form) {
  const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value;
  const players = Number(field("players"));
  /** @type {Record<string, string>} */
  const bots = {};
  for (let seat = 1; seat < players; seat++) bots[seat] = field("level");
  /** @type {Record<string, any>} */
  const body = { players, bots, options: { target: Number(field("target")) } };
  if (field("preset")) body.preset = field("preset");
  if (field("seed")) body.seed = Number(field("seed"));
  if (field("first_dealer")) body.first_dealer = Number(field("first_dealer"));
  if (players === 2 && field("two_player_method")) body.options.two_player_method = field("two_player_method");
  if (field("clock")) body.clock = { move_seconds: Number(field("clock")), reserve_seconds: 120, bot: field("level") };
  // A match of several games: a running score, the next game started by us (the host), streams that stay open.
  if (Number(field("games")) > 1) body.series = { games: Number(field("games")), start: "host" };
  const created = await api("POST", "/v1/sessions", { body });
  // The tokens are answered once: we keep ours, seat 0's (bot seats get null), and the table host token, for the
  // next game only. The host token is not kept: it exports the sealed snapshot, which opens every hand; a player's
  // table plays with nothing but its seat token, which asks the session itself for reasons and hints about its
  // own seat.
  return { sessionId: created.session_id, seat: 0, seatToken: created.seat_tokens[0],
           tableHostToken: created.table_host_token ?? undefined,
           players, preset: field("preset"), level: field("level"), lastEventId: null, events: [] };
}

// ------------------------------------------------------------------------------------------ 3. sending a move

/** A fresh random key: one per move the player makes, the same for every retry of it. */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Send our move, chosen at `version`. `If-Match` makes the service refuse it (409) if the session moved on
 * meanwhile; the `Idempotency-Key` makes a retry answer the first result instead of moving twice, so a lost
 * answer or a 503 is simply retried with the same key.
 * @param {any} move @param {number} version
 */
async function sendMove(move, version) {
  const idempotencyKey = `seat${saved?.seat}-v${version}-${newKey()}`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await api("POST", `${base()}/moves`, { token: saved?.seatToken, body: { move }, ifMatch: version, idempotencyKey });
    } catch (error) {
      const retry = !(error instanceof ApiError) || error.status === 503; // no answer, or the store is busy
      if (!retry || attempt === 5) throw error;
      connection("retrying");
      await sleep(400 * attempt);
    }
  }
}

/** The player chose `move`: send it, then draw the answer (the stream animates the bots' replies in it). */
async function act(/** @type {any} */ move) {
  if (acting || !latest) return;
  acting = true;
  document.body.dataset.turn = "waiting";
  problem(null);
  clearHint();
  let answer = null;
  try {
    answer = await sendMove(move, latest.version);
  } catch (error) {
    acting = false;
    if (error instanceof ApiError && error.status === 409) { // VERSION_CONFLICT: read the table again
      status("The table moved on meanwhile; here it is now.");
      await refresh();
    } else {
      problem(error); // ILLEGAL_MOVE and the like: nothing was applied, the turn is still ours
      document.body.dataset.turn = "you";
    }
    return;
  }
  acting = false;
  selected.clear();
  setLatest(answer.version, answer.view, answer.clock); // our move and the bots' replies; the stream animates them
}

// ------------------------------------------------------------------------------------ 4. the event stream

/**
 * Follow the seat's events. An EventSource cannot send headers, so the token goes in the query (the service
 * never logs query strings), and so does the id of the last event we kept (`last_event_id`): the stream
 * resumes just after it, after a reload as after a lost connection.
 */
function follow() {
  if (!saved) return;
  source?.close();
  const query = new URLSearchParams({ access_token: saved.seatToken });
  if (API_KEY) query.set("api_key", API_KEY);
  if (saved.lastEventId) query.set("last_event_id", saved.lastEventId);
  const stream = new EventSource(`${API}${base()}/events?${query}`);
  source = stream;
  // Each frame: {version, to_act, event}, the event redacted for our seat.
  stream.onmessage = (message) => receive(message.lastEventId, JSON.parse(message.data));
  stream.addEventListener("end", () => { // the game is over and every event was sent (a table without `series`)
    streamEnded = true;
    stream.close();
    connection("ended");
  });
  stream.onopen = () => connection("live");
  stream.onerror = () => {
    // After the end, the service answers 204 (a table whose streams end with the game; see nextGameCame()).
    if (streamEnded || source !== stream || (gameOver() && !series?.continues)) return;
    connection("reconnecting");
    // Reconnect ourselves, from our last event: the browser's own retry would stop at an error answer (a 503),
    // and would reuse the first URL (its Last-Event-ID header, which the service prefers, would still be right).
    stream.close();
    setTimeout(() => source === stream && follow(), 1000);
  };
}

/** Whether the game is over: the last event of the game (a seat asking for the next one is not of it). */
const gameOver = () => saved?.events.findLast((e) => e.event.type !== "rematch_asked")?.event.type === "game_over";

/** Event ids are `<version>-<index>`; is `a` after `b`? */
function after(/** @type {string} */ a, /** @type {string|null} */ b) {
  if (!b) return true;
  const [av, ai] = a.split("-").map(Number);
  const [bv, bi] = b.split("-").map(Number);
  return av > bv || (av === bv && ai > bi);
}

/** @param {string} id @param {any} frame */
function receive(id, frame) {
  if (!saved || !after(id, saved.lastEventId)) return; // already have it (never shown twice)
  const item = { id, version: frame.version, toAct: frame.to_act, event: frame.event };
  if (clockView && frame.version > clockVersion) { // the clock runs for the frame's seat to act, until `deadline`
    const seat = ghostOf(latest?.view, frame.to_act)?.controlled_by ?? frame.to_act;
    clockView = { ...clockView, seat: frame.deadline ? seat : null, deadline: frame.deadline ?? null };
    clockVersion = frame.version;
  }
  saved.events.push(item);
  saved.lastEventId = id;
  save();
  logEvent(item);
  queue.push(item);
  pump();
}

/** Show the received events one by one, then draw the newest view. */
async function pump() {
  if (pumping) return;
  pumping = true;
  while (queue.length) {
    const item = /** @type {Received} */ (queue.shift());
    // Already on the table (drawn from a newer answer while the stream lagged), or far behind: no pauses.
    if (item.version > drawnVersion) await animate(item.event, queue.length > 24, item.version);
    shownVersion = item.version;
  }
  pumping = false;
  maybeDraw();
}

/** One event on the table: a call by a seat, a card to the trick, a trick gathered. */
async function animate(/** @type {any} */ event, /** @type {boolean} */ quick, /** @type {number} */ version) {
  const theirs = event.seat !== undefined && event.seat !== saved?.seat;
  const pause = (/** @type {number} */ ms) => (quick ? Promise.resolve() : sleep(ms));
  switch (event.type) {
    case "seat_joined":
    case "seat_left":
    case "seat_token_reissued":
      await refresh(); // who holds the seats (names) changed
      break;
    case "hand_dealt":
      trick = [];
      drawTrick();
      document.querySelectorAll(".said").forEach((e) => { e.textContent = ""; });
      break;
    case "bid_made":
    case "passed":
      said(event.seat, event.type === "passed" ? "Pass" : bidText(event.bid, event.sans_kitty));
      if (theirs) await pause(STEP_MS);
      break;
    case "card_played":
      trick.push({ seat: event.seat, card: event.card });
      drawTrick();
      if (theirs) await pause(STEP_MS);
      break;
    case "trick_won":
      drawTrick(event.seat);
      await pause(STEP_MS * 1.5);
      trick = [];
      drawTrick();
      break;
    case "hand_scored":
      drawScoreSheet();
      break;
    case "game_over": // the match score counts it now
    case "rematch_asked": // who asked for the next game, who is awaited
      await refresh();
      break;
    case "seat_away": // the clock's bot plays for the seat at once, until its player comes back
    case "seat_back":
    case "seat_forfeited": // a bot keeps the seat for good
      if (version >= tableVersion) {
        seatsInfo = seatsInfo.map((s) => (s.seat === event.seat ? { ...s, away: event.type === "seat_away" } : s));
        tableVersion = version;
        drawTableLife(); // at once: the view is read again below, and drawn once the stream caught up
      }
      await refresh();
      break;
    case "game_started":
    case "game_paused":
    case "game_resumed":
    case "game_called_off":
    case "game_abandoned":
      if (version >= tableVersion) {
        life = { status: { game_paused: "paused", game_called_off: "ended", game_abandoned: "ended" }[/** @type {string} */ (event.type)] ?? "running",
                 ended: event.type === "game_called_off" ? { how: "called_off", version }
                   : event.type === "game_abandoned" ? { how: "abandoned", by: event.by, version } : null };
        tableVersion = version;
        drawTableLife();
        drawClock();
      }
      await refresh();
      break;
    case "next_game": // the same seats, a new game: a clean table, its own score sheet, the match score
      trick = [];
      drawTrick();
      document.querySelectorAll(".said").forEach((e) => { e.textContent = ""; });
      drawScoreSheet();
      await refresh();
      break;
  }
}

// --------------------------------------------------------------------------------------- reading the table

/** GET the seat's view (and the version it is at). */
async function refresh() {
  const state = await api("GET", base(), { token: saved?.seatToken });
  if (state.version >= tableVersion) { // (an answer older than an event already shown changes nothing)
    seatsInfo = state.seats ?? [];
    life = { status: state.status ?? "running", ended: state.ended ?? null };
    tableVersion = state.version;
  }
  if (state.version >= seriesVersion) {
    series = state.series ?? null; // (none from a service without rematches: then no next game is offered)
    seriesVersion = state.version;
  }
  setLatest(state.version, state.view, state.clock);
}

/** The newest state known (and its clock: `undefined` when the answer carries none, `null` for no clock). */
function setLatest(/** @type {number} */ version, /** @type {any} */ view, /** @type {any} */ clock = undefined) {
  if (!latest || version >= latest.version) {
    latest = { version, view, at: Date.now() };
    if (clock !== undefined && version >= clockVersion) {
      clockView = clock;
      clockVersion = version;
    }
  }
  maybeDraw();
}

/** Draw the newest view once the stream has shown how we got there (or it is late, or not connected). */
function maybeDraw() {
  clearTimeout(renderTimer);
  if (pumping || !latest || acting) return;
  if (latest.version < shownVersion) { refresh().catch(problem); return; } // the stream is ahead: read the view
  const waiting = latest.version > shownVersion && !streamEnded && source?.readyState !== EventSource.CLOSED;
  const late = Date.now() - latest.at;
  if (waiting && late < CATCH_UP_MS) {
    if (!$("seats").childElementCount) drawSeats(latest.view); // somewhere to show the bots' calls meanwhile
    renderTimer = window.setTimeout(maybeDraw, CATCH_UP_MS - late);
    return;
  }
  draw().catch(problem);
}

async function draw() {
  if (!latest || !saved) return;
  const ticket = ++drawTicket;
  const { version, view } = latest;
  drawnVersion = Math.max(drawnVersion, version);
  const mine = oursToAct(view) && life.status === "running"; // nothing is played before the start, paused, ended
  const moves = mine ? await api("GET", `${base()}/legal-moves`, { token: saved.seatToken }) : null;
  if (ticket !== drawTicket) return; // a newer draw started meanwhile
  if (moves && moves.version !== version) { await refresh(); return; }
  if (view.phase === "game_over" && seriesVersion < version) { await refresh(); return; } // the match score
  legal = moves ? moves.legal_moves : [];
  trick = (view.current_trick?.plays ?? []).map((/** @type {any} */ p) => ({ seat: p.seat, card: p.card }));
  document.body.dataset.phase = view.phase;
  drawSeats(view);
  drawTrick();
  drawContract(view);
  drawHand(view, mine);
  drawControls(view, mine);
  drawScores(view);
  drawClock();
  drawTableLife();
  $("hint").hidden = !mine;
  const over = view.phase === "game_over" || life.status === "ended";
  $("new-game").hidden = humanTable() && !over; // never a way out of a table with players, by accident
  document.body.dataset.turn = over ? "over" : mine ? "you" : "others";
  if (life.status !== "running") { // (the status says the life: drawTableLife)
    if (over) ($("new-game").hidden ? $("status") : $("new-game")).focus();
  } else if (over) {
    status(gameOverText(view));
    $("contract").textContent = gameOverText(view);
    ($("rematch").hidden ? $("new-game") : $("rematch")).focus();
  }
  else if (mine && view.to_act !== saved.seat) status(`Your turn, for your ghost: play one of its face-up cards.`);
  else if (mine) status(`Your turn: ${rules.names.phases[view.phase] ?? view.phase}.`);
  else status(`${seatName(view.to_act)} to play…`);
  // Keyboard players: keep the focus on something useful when what had it is gone.
  if (mine && (document.activeElement === document.body || !document.activeElement?.isConnected)) {
    /** @type {HTMLElement|null} */ (document.querySelector("#controls [data-legal=true], #hand [data-legal=true]"))?.focus();
  }
}

// ------------------------------------------------------------------------------------------------ drawing

const seatName = (/** @type {number} */ seat) => (seat === saved?.seat && !saved?.watching ? "You"
  : ghostOf(latest?.view, seat) ? ghostName(/** @type {any} */ (ghostOf(latest?.view, seat)))
  : seatsInfo[seat]?.name ?? `Seat ${seat}`);
/** The ghost partner at `seat` (two players, `ghost_partners`), from the view's public `ghosts`; else undefined. */
const ghostOf = (/** @type {any} */ view, /** @type {number} */ seat) =>
  view?.ghosts?.find((/** @type {any} */ g) => g.seat === seat);
const ghostName = (/** @type {any} */ ghost) => (ghost.controlled_by === saved?.seat && !saved?.watching
  ? "Your ghost" : `${seatsInfo[ghost.controlled_by]?.name ?? `Seat ${ghost.controlled_by}`}'s ghost`);
/** Whether the seat to act is ours to move: our own seat, or (ghost partners) our ghost's. */
const oursToAct = (/** @type {any} */ view) => !saved?.watching && view.to_act !== null && view.to_act !== undefined
  && (view.to_act === saved?.seat || ghostOf(view, view.to_act)?.controlled_by === saved?.seat);
const sideOf = (/** @type {any} */ view, /** @type {number} */ seat) =>
  view.sides.findIndex((/** @type {number[]} */ side) => side.includes(seat));
const cardName = (/** @type {string} */ card) => rules?.names.cards[card] ?? card;

/** Short text of a card: rank and suit symbol (`Q♠`), the joker `Jkr`. */
function cardText(/** @type {string} */ card) {
  if (card.startsWith("JK")) return card === "JKB" ? "Jkr²" : "Jkr";
  return card.slice(0, -1) + SUITS[/** @type {keyof SUITS} */ (card.slice(-1))];
}

/** A card as an element: its face for the eye, its name (`queen of spades`) for screen readers. */
function cardElement(/** @type {string} */ card, tag = "span") {
  const element = document.createElement(tag);
  element.className = `card suit-${card.startsWith("JK") ? "joker" : card.slice(-1)}`;
  element.textContent = cardText(card);
  element.dataset.card = card;
  if (tag === "span") element.setAttribute("role", "img");
  element.setAttribute("aria-label", cardName(card));
  return element;
}

function bidText(/** @type {string} */ bid, sansKitty = false) {
  const short = /^\d+[SCDH]$/.test(bid) ? bid.slice(0, -1) + SUITS[/** @type {keyof SUITS} */ (bid.slice(-1))]
    : /^\d+NT$/.test(bid) ? bid : (rules?.names.bids[bid] ?? bid); // 7♥, 7NT, Misère
  return sansKitty ? `${short} sans kitty` : short;
}

function said(/** @type {number} */ seat, /** @type {string} */ text) {
  const element = document.querySelector(`[data-seat="${seat}"] .said`);
  if (element) element.textContent = text;
}

function drawSeats(/** @type {any} */ view) {
  const list = $("seats");
  list.replaceChildren();
  const mySide = sideOf(view, /** @type {number} */ (saved?.seat));
  const seats = view.players + (view.ghosts?.length ?? 0); // ghost partners sit at the table too
  for (let i = 1; i < seats; i++) {
    const seat = ((saved?.seat ?? 0) + i) % seats; // clockwise from our left
    const ghost = ghostOf(view, seat);
    list.append(ghost ? ghostPanel(view, ghost, sideOf(view, seat) === mySide)
      : seatPanel(view, seat, sideOf(view, seat) === mySide));
  }
  $("me-panel").replaceChildren(seatPanel(view, /** @type {number} */ (saved?.seat), true, "p"));
}

/** A ghost partner: its face-up cards (the ones that cover a face-down card marked), how many lie face down,
 *  and, while it is ours to play, its playable cards as buttons. Nothing face down is ever in the view. */
function ghostPanel(/** @type {any} */ view, /** @type {any} */ ghost, /** @type {boolean} */ partner) {
  const li = document.createElement("li");
  li.dataset.seat = String(ghost.seat);
  li.dataset.ghost = "true";
  if (view.to_act === ghost.seat) li.setAttribute("aria-current", "true");
  const tricks = view.tricks_won?.[ghost.seat];
  li.innerHTML = `<strong class="name"></strong> <span class="tags"></span>
    <span class="count"></span> <span class="said" aria-live="off"></span>`;
  /** @type {HTMLElement} */ (li.querySelector(".name")).textContent = ghostName(ghost);
  /** @type {HTMLElement} */ (li.querySelector(".tags")).textContent = ["ghost", ...(partner ? ["partner"] : [])].join(" · ");
  /** @type {HTMLElement} */ (li.querySelector(".count")).textContent =
    `${ghost.face_up.length} face up · ${ghost.face_down} face down`
    + (tricks !== undefined && view.phase === "play" ? ` · ${tricks} tricks` : "");
  const ours = ghost.controlled_by === saved?.seat && !saved?.watching;
  const covering = new Set(ghost.covered ?? []);
  const row = document.createElement("span");
  row.className = "ghost-cards";
  row.setAttribute("aria-label", `${ghostName(ghost)}'s face-up cards`);
  row.append(...ghost.face_up.map((/** @type {string} */ card) => {
    const plays = ours ? legal.filter((m) => m.type === "play" && m.seat === ghost.seat && m.card === card) : [];
    const element = cardElement(card, ours ? "button" : "span");
    let label = cardName(card);
    if (covering.has(card)) { element.classList.add("covers"); label += ", on a face-down card"; }
    if (ours) {
      /** @type {HTMLButtonElement} */ (element).type = "button";
      element.dataset.legal = String(plays.length > 0);
      element.onclick = () => playCard(card, plays, ghost.seat);
    }
    element.setAttribute("aria-label", label);
    return element;
  }));
  const down = document.createElement("span");
  down.className = "face-down";
  down.dataset.count = String(ghost.face_down);
  down.textContent = ghost.face_down ? `${"🂠".repeat(ghost.face_down)}` : "";
  down.setAttribute("aria-label", `${ghost.face_down} cards face down`);
  li.append(row, down);
  return li;
}

function seatPanel(/** @type {any} */ view, /** @type {number} */ seat, /** @type {boolean} */ partner, tag = "li") {
  const li = document.createElement(tag);
  li.dataset.seat = String(seat);
  if (view.to_act === seat) li.setAttribute("aria-current", "true");
  const tags = [];
  if (seat !== saved?.seat && partner) tags.push("partner");
  if (view.dealer === seat) tags.push("dealer");
  if (view.contract?.contractor === seat) tags.push("contractor");
  const calls = view.auction.filter((/** @type {any} */ c) => c.seat === seat);
  const last = calls[calls.length - 1];
  const saidText = view.phase === "auction" && last ? (last.bid ? bidText(last.bid, last.sans_kitty) : "Pass") : "";
  const tricks = view.tricks_won?.[seat];
  li.innerHTML = `<strong class="name"></strong> <span class="away" hidden>away</span> <span class="tags"></span>
    <span class="count"></span> <span class="said" aria-live="off"></span> <span class="time"></span>`;
  /** @type {HTMLElement} */ (li.querySelector(".name")).textContent = seatName(seat) + (seat === saved?.seat ? ` (seat ${seat})` : "");
  /** @type {HTMLElement} */ (li.querySelector(".away")).setAttribute("aria-label", `${seatName(seat)} is away`);
  const holder = seatsInfo[seat];
  if (holder?.kind === "bot") tags.unshift(`${holder.level} bot`);
  else if (holder?.kind === "open") tags.unshift("open seat");
  else if (!holder && seat !== saved?.seat) tags.unshift(`${saved?.level} bot`);
  /** @type {HTMLElement} */ (li.querySelector(".tags")).textContent = tags.join(" · ");
  /** @type {HTMLElement} */ (li.querySelector(".count")).textContent =
    `${view.hand_sizes[seat]} cards` + (tricks !== undefined && view.phase === "play" ? ` · ${tricks} tricks` : "");
  /** @type {HTMLElement} */ (li.querySelector(".said")).textContent = saidText;
  const exposed = view.exposed?.[String(seat)]; // an open misère hand, shown to all
  if (exposed && seat !== saved?.seat) {
    const row = document.createElement("span");
    row.className = "exposed";
    row.setAttribute("aria-label", `${seatName(seat)}'s open hand`);
    row.append(...exposed.map((/** @type {string} */ c) => cardElement(c)));
    li.append(row);
  }
  return li;
}

function drawTrick(/** @type {number|undefined} */ winner = undefined) {
  const list = $("trick");
  list.replaceChildren(...trick.map(({ seat, card }) => {
    const li = document.createElement("li");
    if (seat === winner) li.className = "winner";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = seatName(seat) + (seat === winner ? " wins" : "");
    li.append(who, cardElement(card));
    return li;
  }));
}

function drawContract(/** @type {any} */ view) {
  const c = view.contract;
  let text = "";
  if (c) {
    text = `Contract: ${bidText(c.bid, c.sans_kitty)} by ${seatName(c.contractor)} (${c.value} points)`;
    if (c.called_card) text += ` · called ${cardName(c.called_card)}`;
    if (c.partners_known && c.partners.length) text += ` · partners ${c.partners.map(seatName).join(", ")}`;
    if (c.alone) text += " · alone";
  } else if (view.high_bid) {
    text = `Auction: ${bidText(view.high_bid.bid, view.high_bid.sans_kitty)} by ${seatName(view.high_bid.seat)} is high`;
  } else if (view.phase === "auction") {
    text = `Auction: no bid yet · ${seatName(view.dealer)} dealt`;
  }
  const nominated = Object.entries(view.joker_nominations ?? {});
  if (nominated.length) text += ` · ${nominated.map(([card, suit]) => `${cardText(card)} is a ${rules.names.suits[suit]}`).join(", ")}`;
  $("contract").textContent = text;
}

function drawHand(/** @type {any} */ view, /** @type {boolean} */ mine) {
  const exchanging = mine && view.phase === "exchange";
  const fromKitty = new Set(view.kitty ?? []); // during the exchange: which of our cards came from the kitty
  const list = $("hand");
  if (view.hand === null) { // blind misère: we have not looked
    list.replaceChildren(Object.assign(document.createElement("li"), { textContent: `${view.hand_sizes[saved?.seat ?? 0]} cards, face down` }));
    return;
  }
  list.replaceChildren(...view.hand.map((/** @type {string} */ card) => {
    const button = /** @type {HTMLButtonElement} */ (cardElement(card, "button"));
    button.type = "button";
    const plays = legal.filter((m) => m.type === "play" && m.card === card);
    button.dataset.legal = String(exchanging || plays.length > 0);
    let label = cardName(card);
    if (fromKitty.has(card)) { button.classList.add("from-kitty"); label += ", from the kitty"; }
    if (exchanging) {
      button.setAttribute("aria-pressed", String(selected.has(card)));
      button.onclick = () => {
        if (selected.has(card)) selected.delete(card); else selected.add(card);
        button.setAttribute("aria-pressed", String(selected.has(card)));
        drawDiscardButton(view);
      };
    } else {
      if (mine && view.phase === "play" && !plays.length) label += ", not playable now";
      button.onclick = () => playCard(card, plays);
    }
    button.setAttribute("aria-label", label);
    const li = document.createElement("li");
    li.append(button);
    return li;
  }));
}

/** A card clicked: play it; a joker led at no trumps first asks which suit it nominates. */
function playCard(/** @type {string} */ card, /** @type {any[]} */ plays, seat = saved?.seat) {
  if (plays.length > 1) { drawActions(plays, `Lead ${cardName(card)} as which suit?`); return; }
  act(plays[0] ?? { type: "play", seat, card }); // not legal: the service says why
}

function drawControls(/** @type {any} */ view, /** @type {boolean} */ mine) {
  $("bidbox").hidden = view.phase !== "auction";
  if (view.phase === "auction") drawBidBox(mine);
  else $("pass").dataset.legal = "false";
  drawDiscardButton(view);
  const special = new Set(["bid", "pass", "play", "discard"]);
  drawActions(legal.filter((m) => !special.has(m.type)));
}

/** The bid box, built from the catalogue's ladder; bids not among our legal moves are disabled, with the
 *  service's own reason on hover, focus or click. */
function drawBidBox(/** @type {boolean} */ mine) {
  const sansKitty = /** @type {HTMLInputElement} */ ($("sans-kitty"));
  $("sans-kitty-label").hidden = !legal.some((m) => m.type === "bid" && m.sans_kitty);
  sansKitty.onchange = () => drawBidBox(mine);
  const pass = legal.find((m) => m.type === "pass");
  const passButton = /** @type {HTMLButtonElement} */ ($("pass"));
  passButton.dataset.legal = String(Boolean(pass));
  passButton.setAttribute("aria-disabled", String(!pass));
  passButton.onclick = () => (pass ? act(pass) : explain({ type: "pass", seat: saved?.seat }));
  $("bids").replaceChildren(...rules.ladder.map((/** @type {any} */ rung) => {
    const move = { type: "bid", seat: saved?.seat, bid: rung.bid, sans_kitty: sansKitty.checked };
    const ok = legal.find((m) => m.type === "bid" && m.bid === rung.bid && Boolean(m.sans_kitty) === sansKitty.checked);
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = bidText(rung.bid);
    // A suit bid in its level's row and its suit's column (spades to no trumps); the others (misères) after them.
    const [, level, suit] = /^(\d+)(S|C|D|H|NT)$/.exec(rung.bid) ?? [];
    button.className = `bid suit-${suit && suit !== "NT" ? suit : suit ?? "other"}`;
    if (suit) Object.assign(button.style, { gridRow: String(Number(level) - 5), gridColumn: String("SCDH".indexOf(suit) + 1 || 5) });
    button.dataset.bid = rung.bid;
    button.dataset.legal = String(Boolean(ok));
    button.setAttribute("aria-disabled", String(!ok));
    button.setAttribute("aria-label", `${rules.names.bids[rung.bid] ?? rung.bid}, ${rung.value} points`);
    if (ok) button.onclick = () => act(ok);
    else {
      const why = async () => { button.title = await explain(move); };
      button.onmouseenter = why;
      button.onfocus = why;
      button.onclick = why;
    }
    return button;
  }));
  if (!mine) $("bid-reason").textContent = "";
}

/**
 * Why a move is not legal now, in the service's words: `POST /v1/sessions/{id}/validate` with our seat token
 * (the engine's check of that very move of our seat). Cached per version; shown under the bid box.
 * @param {any} move
 */
async function explain(move) {
  if (!latest) return "";
  const version = latest.version;
  const key = `${version} ${JSON.stringify(move)}`;
  if (!reasons.has(key)) {
    reasons.set(key, api("POST", `${base()}/validate`, { token: saved?.seatToken, body: { move } })
      .then((answer) => (answer.legal ? "" : `${answer.detail} (${answer.reason})`))
      .catch(() => ""));
  }
  const text = await /** @type {Promise<string>} */ (reasons.get(key));
  if (latest?.version === version) $("bid-reason").textContent = text;
  return text;
}

function drawDiscardButton(/** @type {any} */ view) {
  const button = /** @type {HTMLButtonElement} */ ($("discard"));
  const exchanging = view.phase === "exchange" && view.to_act === saved?.seat;
  button.hidden = !exchanging;
  if (!exchanging) return;
  const ready = selected.size === view.kitty_size;
  button.textContent = `Discard ${view.kitty_size} (${selected.size} chosen)`;
  button.dataset.count = String(view.kitty_size);
  button.dataset.legal = String(ready);
  button.setAttribute("aria-disabled", String(!ready));
  button.onclick = () => (ready ? act({ type: "discard", seat: saved?.seat, cards: [...selected] })
    : status(`Choose ${view.kitty_size} cards to discard.`));
}

/** Every other kind of move as a button of its own (nominations, partner calls, redeal answers…). */
function drawActions(/** @type {any[]} */ moves, prompt = "") {
  const heading = prompt ? [Object.assign(document.createElement("p"), { textContent: prompt })] : [];
  $("actions").replaceChildren(...heading, ...moves.map((move) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = moveText(move);
    button.dataset.legal = "true";
    button.dataset.move = JSON.stringify(move);
    button.onclick = () => act(move);
    return button;
  }));
}

function moveText(/** @type {any} */ move) {
  const names = rules.names;
  const suit = (/** @type {string|null} */ s) => (s ? `${SUITS[/** @type {keyof SUITS} */ (s)]} ${names.suits[s]}` : "no suit");
  switch (move.type) {
    case "play": return `${cardName(move.card)}${move.nominate ? `, as ${suit(move.nominate)}` : ""}`;
    case "nominate_joker": return move.suit ? `${cardText(move.card)} is ${suit(move.suit)}` : "Do not nominate";
    case "call_card": return `Call ${cardName(move.card)}`;
    case "choose_partners": return `Partners: ${move.partners.map(seatName).join(", ")}`;
    case "answer_redeal": return move.accept ? "Accept the redeal" : "Play on";
    default: return names.moves[move.type] ?? move.type;
  }
}

function drawScores(/** @type {any} */ view) {
  const mySide = sideOf(view, /** @type {number} */ (saved?.seat));
  $("scores").textContent = view.sides.map((/** @type {number[]} */ side, /** @type {number} */ i) =>
    `${i === mySide ? "Us" : "Them"} (${side.map(seatName).join(", ")}): ${view.scores[i]}`).join(" · ");
  drawScoreSheet();
  // A match of several games: each finished game of it, who won and its final scores.
  const games = series && series.games > 1 ? series.results : [];
  $("match-games").hidden = !games.length;
  $("match-games").replaceChildren(...games.map((/** @type {any} */ r) => Object.assign(document.createElement("li"), {
    textContent: `Game ${r.match_game}: ${r.winners.map(sideName).join(" and ") || "nobody"} won, ${r.scores.join(" to ")}`,
  })));
}

/** One row per hand scored in this game, from the `hand_scored` events we received since its `next_game`. */
function drawScoreSheet() {
  if (!latest || !saved) return;
  const sides = latest.view.sides;
  const mySide = sideOf(latest.view, saved.seat);
  const head = /** @type {HTMLElement} */ ($("score-sheet").querySelector("thead"));
  const body = /** @type {HTMLElement} */ ($("score-sheet").querySelector("tbody"));
  head.innerHTML = `<tr><th scope="col">Hand</th><th scope="col">Contract</th>${sides.map((/** @type {any} */ _s, /** @type {number} */ i) =>
    `<th scope="col">${i === mySide ? "Us" : "Them"}</th>`).join("")}</tr>`;
  const rows = saved.events.slice(saved.events.findLastIndex((e) => e.event.type === "next_game") + 1)
    .filter((e) => e.event.type === "hand_scored");
  body.replaceChildren(...rows.map((item, n) => {
    const e = item.event;
    const tr = document.createElement("tr");
    const contract = e.bid ? `${bidText(e.bid)} ${seatName(e.contractor)} ${e.made ? "made" : "failed"}` : "no bid";
    const cells = [String(n + 1), contract, ...e.scores.map((/** @type {number} */ s, /** @type {number} */ i) =>
      `${s} (${e.deltas[i] >= 0 ? "+" : ""}${e.deltas[i]})`)];
    tr.append(...cells.map((text) => Object.assign(document.createElement("td"), { textContent: text })));
    return tr;
  }));
}

function gameOverText(/** @type {any} */ view) {
  const mySide = sideOf(view, /** @type {number} */ (saved?.seat));
  const won = view.result?.winners.includes(mySide);
  const match = series?.games > 1 && series.match_over && seriesVersion >= (latest?.version ?? 0)
    ? ` The match is over: ${matchScoreText(series.score)}.` : "";
  return `Game over: ${won ? "your side wins" : "your side loses"} (${view.scores.join(" to ")}).${match}`;
}

/** The event log: one line per event received, in order, each with its stream id. */
function logEvent(/** @type {Received} */ item) {
  const li = document.createElement("li");
  li.dataset.eventId = item.id;
  li.textContent = describe(item.event);
  $("log").append(li);
}

function describe(/** @type {any} */ e) {
  const who = seatName(e.seat);
  switch (e.type) {
    case "hand_dealt": return `Hand ${e.hand_number + 1}: ${seatName(e.dealer)} dealt`;
    case "cards_received": return e.cards ? `${who} received ${e.cards.map(cardText).join(" ")}` : `${who} received cards`;
    case "bid_made": return `${who} bid ${bidText(e.bid, e.sans_kitty)}`;
    case "passed": return `${who} passed`;
    case "auction_won": return `${seatName(e.contractor)} won the auction with ${bidText(e.bid, e.sans_kitty)}`;
    case "card_played": return `${who} played ${cardName(e.card)}`;
    case "ghost_cards_up": return `${who}: face up ${e.cards.map(cardText).join(" ")}`;
    case "trick_won": return `${who} won trick ${e.trick_number}`; // trick_number counts from 1
    case "hand_scored": return `Hand scored: ${e.deltas.join(" / ")} → ${e.scores.join(" / ")}`;
    case "game_over": return `Game over (${e.reason})`;
    case "rematch_asked": return `${who} asked for the next game`
      + (e.waiting.length ? `; waiting for ${e.waiting.map(seatName).join(", ")}` : "");
    case "next_game": return `${gameTitle(e)} begins` + (e.games > 1 ? ` (${matchScoreText(e.score)})` : "");
    case "game_started": return e.by === "host" ? "The host started the game" : "Every seat is taken: the game starts";
    case "game_paused": return "The host paused the game";
    case "game_resumed": return "The host resumed the game";
    case "game_called_off": return "The host called the game off";
    case "game_abandoned": return `The game was abandoned by ${e.by.map(seatName).join(", ")}`;
    case "seat_away": return `${who} is away: the computer plays for them`;
    case "seat_back": return `${who} is back`;
    case "seat_forfeited": return `${who} stayed away: a ${e.level} bot keeps the seat`;
    default: return `${rules?.names.moves[e.type] ?? e.type.replaceAll("_", " ")}${e.seat !== undefined ? ` (${who})` : ""}`;
  }
}

// ----------------------------------------------------------------------------------- the clock and the table

/** Minutes and seconds, rounded up (what is left of a turn never shows 0:00 before it is over). */
function clockText(/** @type {number} */ ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * The turn clock, redrawn every quarter second: the seat on it and its time left, the move's own limit first and
 * then its reserve (`deadline` already includes the seat's reserve: the limit's part is what lies beyond it), as
 * `deadline` minus this device's clock; every other seat's reserve in its panel. Hidden without a clock.
 */
function drawClock() {
  const element = $("clock");
  const clock = clockView;
  element.hidden = !clock || !latest || latest.view.phase === "game_over" || life.status === "ended";
  document.querySelectorAll("[data-seat] > .time").forEach((e) => { e.textContent = ""; });
  if (!clock || element.hidden) return;
  const reserveOf = (/** @type {number} */ seat) => (clock.reserves?.[seat] ?? 0) * 1000;
  if (clock.reserve_seconds > 0) {
    for (const panel of document.querySelectorAll("#seats > [data-seat], #me-panel > [data-seat]")) {
      const seat = Number(/** @type {HTMLElement} */ (panel).dataset.seat);
      const time = panel.querySelector(":scope > .time");
      if (time && seat !== clock.seat && seat < (latest?.view.players ?? 0)) time.textContent = `reserve ${clockText(reserveOf(seat))}`;
    }
  }
  // Waiting to start or paused, nobody is on the clock: it stands still (whatever deadline a late answer had).
  const stopped = life.status === "waiting" || life.status === "paused";
  if (stopped || clock.seat === null || clock.seat === undefined || !clock.deadline) {
    element.textContent = life.status === "waiting" ? "The clock starts with the game"
      : life.status === "paused" ? "Clock stopped: paused" : "Clock paused";
    Object.assign(element.dataset, { seat: "", mine: "false", low: "false", stopped: "true" });
    delete element.dataset.leftMs;
    delete element.dataset.deadline;
    return;
  }
  const left = Date.parse(clock.deadline) - Date.now();
  const reserve = reserveOf(clock.seat);
  const text = clockText(left - reserve) + (reserve > 0 ? ` + reserve ${clockText(Math.min(reserve, left))}` : "");
  const mine = clock.seat === saved?.seat && !saved?.watching;
  element.textContent = `${mine ? "Your time" : seatName(clock.seat)}: ${text}`;
  Object.assign(element.dataset, { seat: String(clock.seat), mine: String(mine), leftMs: String(Math.max(0, left)),
                                   low: String(left < 10_000), stopped: "false", deadline: clock.deadline });
  const time = document.querySelector(`#seats > [data-seat="${clock.seat}"] > .time`); // ours: #clock says it
  if (time) time.textContent = `time ${text}`;
}

/** Whether players other than us sit at this table (or we only watch it): "New game" is then not offered while
 *  the game runs, so that nobody leaves such a table for a game against the bots by accident. */
const humanTable = () => Boolean(saved?.watching || saved?.joined
  || seatsInfo.some((s) => s.seat !== saved?.seat && s.kind !== "bot"));

/**
 * The table's own life, beside the game: who it waits for (an open seat: its invitation not redeemed yet, or its
 * player gone), and once the game is over its next game: who may start it, who asked, and the button for whoever
 * this page may start it as. And the game's life (the session's `status`, `ended` and each seat's `away`, kept
 * up from the stream's `game_…` and `seat_away`/`seat_back` events): waiting to start, paused by the host, called
 * off or abandoned, and who is away (also a badge in the seat's panel).
 */
function drawTableLife() {
  const open = seatsInfo.filter((s) => s.kind === "open").map((s) => seatName(s.seat));
  $("open-seats").textContent = open.length
    ? `Waiting for ${open.length > 1 ? "players" : "a player"}: ${open.join(", ")} ${open.length > 1 ? "are" : "is"} open.` : "";
  const away = seatsInfo.filter((s) => s.away).map((s) => s.seat);
  document.querySelectorAll("[data-seat] > .away").forEach((badge) => {
    /** @type {HTMLElement} */ (badge).hidden = !away.includes(Number(/** @type {HTMLElement} */ (badge.parentElement).dataset.seat));
  });
  $("away").textContent = away.length ? `Away: ${away.map(seatName).join(", ")} (the computer plays for ${away.length > 1 ? "them" : "it"} until ${away.length > 1 ? "they come" : "it comes"} back).` : "";
  $("away").dataset.seats = away.join(" ");
  $("life").textContent = life.status === "running" ? "" : lifeText();
  $("table-life").dataset.status = life.status;
  document.body.dataset.life = life.status;
  if (life.status !== "running") status(lifeText()); // with the life, not at the next view's drawing
  drawMatch();
  const over = latest?.view.phase === "game_over" && series !== null && seriesVersion >= latest.version;
  const token = over ? rematchToken() : null;
  const asked = over && series.start === "seats" && series.asked.includes(saved?.seat) && !saved?.watching;
  const button = /** @type {HTMLButtonElement} */ ($("rematch"));
  button.hidden = !token || asked;
  button.textContent = series?.games > 1 ? (series.match_over ? "New match" : `Next game (${series.match_game + 1} of ${series.games})`)
    : "Play again";
  button.dataset.game = String(series?.game ?? "");
  button.setAttribute("aria-disabled", String(rematching));
  let text = "";
  if (over && series.start === "seats") { // by agreement: every seat a player holds asks
    const names = (/** @type {number[]} */ seats) => seats.map(seatName).join(", ");
    const awaited = series.waiting.map((/** @type {number} */ s) => (s === saved?.seat && !saved?.watching ? "you" : seatName(s)));
    text = series.asked.length ? `${names(series.asked)} asked for the next game; ` : "The next game begins once every player asks for it; ";
    text += awaited.length ? `waiting for ${awaited.join(", ")}.` : "it begins now.";
  } else if (over && !token) {
    text = "The host starts the next game.";
  }
  $("next-game").textContent = text;
  $("table-life").hidden = !open.length && !away.length && life.status === "running" && !text && button.hidden;
}

/** The game's life in words, when it is not simply running. */
function lifeText() {
  switch (life.status) {
    case "waiting": return seatsInfo.some((s) => s.kind === "open") ? "Waiting for players: the game starts once every seat is taken."
      : "Waiting for the host to start the game.";
    case "paused": return "Paused by the host.";
    case "ended": return life.ended?.how === "abandoned"
      ? `Abandoned by ${(life.ended.by ?? []).map(seatName).join(", ") || "its players"}.` : "Game called off.";
    default: return "";
  }
}

/** The match, in the header: this game's number in it and the match score (a table of single games: which game). */
function drawMatch() {
  const element = $("match");
  const shown = series && latest && (series.games > 1 || series.game > 1);
  element.textContent = shown ? `${gameTitle(series)}${series.games > 1 ? ` · ${matchScoreText(series.score)}` : ""}` : "";
  Object.assign(element.dataset, shown ? { game: String(series.game), matchGame: String(series.match_game),
    games: String(series.games), score: series.score.join("-"), over: String(series.match_over) } : { game: "" });
}

/** A side as this page names it: "Us" for our own (when we play), else its players' names. */
function sideName(/** @type {number} */ side) {
  const view = latest?.view;
  if (!view) return `Side ${side}`;
  return side === sideOf(view, /** @type {number} */ (saved?.seat)) && !saved?.watching ? "Us"
    : view.sides[side].map(seatName).join(" & ");
}

/** "Game 2 of 3" (a match), "Match 2, game 1 of 3" (a later match), "Game 4" (single games), from a `series` or a
 *  `next_game` event. */
function gameTitle(/** @type {any} */ g) {
  if (g.games === 1) return `Game ${g.game}`;
  return g.match > 1 ? `Match ${g.match}, game ${g.match_game} of ${g.games}` : `Game ${g.match_game} of ${g.games}`;
}

/** The match score, games won by each side: "Us 1 – 0 Them" for a player of two sides, else "Ana & Bo: 1 · …". */
function matchScoreText(/** @type {number[]} */ score) {
  const mySide = latest ? sideOf(latest.view, /** @type {number} */ (saved?.seat)) : -1;
  if (score.length === 2 && !saved?.watching && mySide >= 0) return `Us ${score[mySide]} – ${score[1 - mySide]} Them`;
  return score.map((n, side) => `${sideName(side)}: ${n}`).join(" · ");
}

// ------------------------------------------------------------------------------------------ 5. the next game

/**
 * The token this page may start the next game with, or null: at a table whose host starts it ("host"), the table
 * host token of a table we created; at a table whose players start it by agreement ("seats"), our seat's own token
 * (our request is our agreement, the last player's begins the game). A spectator starts nothing.
 */
function rematchToken() {
  if (!saved || saved.watching || !series) return null;
  return series.start === "seats" ? saved.seatToken : saved.tableHostToken ?? null;
}

/**
 * Ask for the table's next game: `POST /v1/sessions/{id}/rematch` with `{game}`, the game that is over. Once the
 * game after it has begun, any request naming it is answered that game, so a double click, a retry after a lost
 * answer and another player's click at the same moment start one game, never two. The next game then comes on the
 * stream (`next_game`, then its deal); at a table whose streams ended with the game, we open it again.
 */
async function rematch() {
  const token = rematchToken();
  if (rematching || !series || !token) return;
  rematching = true;
  const game = series.game;
  problem(null);
  drawTableLife();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await api("POST", `${base()}/rematch`, { token, body: { game } });
        if (source?.readyState === EventSource.OPEN) connection("live"); // after a retry
        if (answer.started) reopen();
        break;
      } catch (error) {
        const retry = !(error instanceof ApiError) || error.status === 503; // no answer, or the store is busy
        if (!retry || attempt === 5) throw error;
        connection("retrying");
        await sleep(400 * attempt);
      }
    }
  } catch (error) {
    problem(error); // 409 VERSION_CONFLICT: the game is not over here (another tab?); 403: not ours to start
  } finally {
    rematching = false;
  }
  await refresh(); // who asked, or the new game (the stream shows how it began)
}

/** Open the stream again after it ended with the game (a table without `series`), from our last event. */
function reopen() {
  if (!streamEnded) return;
  streamEnded = false;
  follow();
}

/** At a table whose streams end with the game, nothing tells us that its next game began: look every few seconds
 *  while the game is over, and follow the stream again once the session moved on. */
async function nextGameCame() {
  if (!saved || !streamEnded || !gameOver() || document.hidden) return;
  const state = await api("GET", base(), { token: saved.seatToken });
  if (state.version > shownVersion) reopen();
}

/** The invitation's preview on the join page: whose table, our seat, who sits where (and with whom), the rules
 *  that differ from the defaults, the table's settings. It carries no card and no token. */
async function showInvitation(/** @type {any} */ preview) {
  const info = await catalogue(preview.players, "");
  const sideOf = (/** @type {number} */ seat) => preview.sides.findIndex((/** @type {number[]} */ side) => side.includes(seat));
  const host = preview.host_name ? `${preview.host_name}'s table` : "A table";
  $("join-title").textContent = `${host}: join at seat ${preview.seat}`;
  const hours = Math.floor(preview.expires_in / 3600);
  $("invitation-seat").textContent = `You are invited to seat ${preview.seat} of ${preview.players}`
    + ` (the invitation lasts ${hours ? `${hours} h` : `${Math.ceil(preview.expires_in / 60)} min`} more).`
    + (preview.hand_number > 0 || preview.phase !== "auction" || preview.scores.some(Boolean)
      ? ` The game is under way: hand ${preview.hand_number + 1}, scores ${preview.scores.join(" to ")}.` : "");
  $("invitation-seats").replaceChildren(...preview.seats.map((/** @type {any} */ s) => {
    const li = document.createElement("li");
    li.dataset.seat = String(s.seat);
    const partner = s.seat !== preview.seat && sideOf(s.seat) === sideOf(preview.seat) && preview.sides[sideOf(s.seat)].length > 1;
    const who = s.seat === preview.seat ? "you" : s.kind === "bot" ? `${s.level} bot` : s.kind === "open" ? "open seat"
      : s.name ?? "a player";
    li.textContent = `Seat ${s.seat}: ${who}${partner ? " (your partner)" : ""}`;
    if (s.seat === preview.seat) li.dataset.yours = "true";
    return li;
  }));
  const changed = info.options.filter((/** @type {any} */ o) => o.name !== "target"
    && JSON.stringify(preview.options[o.name]) !== JSON.stringify(info.resolved_options[o.name]))
    .map((/** @type {any} */ o) => `${o.name.replaceAll("_", " ")}: ${String(preview.options[o.name]).replaceAll("_", " ")}`);
  const c = preview.clock;
  const phases = Object.entries(c?.phase_seconds ?? {}).filter(([, seconds]) => seconds)
    .map(([phase, seconds]) => `${seconds} s in the ${phase}`);
  const clock = c ? [`${c.move_seconds} s a move`, ...phases].join(", ")
    + (c.reserve_seconds ? ` and ${clockText(c.reserve_seconds * 1000)} in reserve` : "")
    + (c.increment_seconds ? ` (+${c.increment_seconds} s a move in time, up to ${clockText((c.reserve_max_seconds ?? c.reserve_seconds) * 1000)})` : "")
    : "no clock";
  $("invitation-rules").textContent = [`Rules: ${changed.length ? changed.join(", ") : "the defaults"}`,
    `play to ${preview.options.target}`, clock, preview.hints ? "hints allowed" : "no hints",
    preview.on_leave === "bot" ? `a player who leaves is replaced by a ${preview.leave_level} bot`
      : "a player who leaves leaves the seat open"].join(" · ") + ".";
}

// --------------------------------------------------------------------------------------------------- hints

/** A hint: the computer player's choice for our seat (POST /v1/sessions/{id}/suggest with our seat token,
 *  deciding from our seat's view alone). */
async function hint() {
  if (!latest || !saved) return;
  const version = latest.version;
  const answer = await api("POST", `${base()}/suggest`, { token: saved.seatToken, body: { level: saved.level === "expert" ? "expert" : "basic" } });
  if (latest.version !== version) return;
  clearHint();
  const move = answer.move;
  /** @type {HTMLElement[]} */
  let marked = [];
  if (move.type === "play") marked = [...document.querySelectorAll(`#hand [data-card="${move.card}"], .ghost-cards button[data-card="${move.card}"]`)].map((e) => /** @type {HTMLElement} */ (e));
  else if (move.type === "discard") marked = move.cards.map((/** @type {string} */ c) => document.querySelector(`#hand [data-card="${c}"]`));
  else if (move.type === "bid") marked = [/** @type {HTMLElement} */ (document.querySelector(`#bids [data-bid="${move.bid}"]`))];
  else if (move.type === "pass") marked = [$("pass")];
  else marked = [...document.querySelectorAll("#actions [data-move]")].map((e) => /** @type {HTMLElement} */ (e))
    .filter((e) => e.dataset.move === JSON.stringify(move));
  marked.filter(Boolean).forEach((e) => e.classList.add("hinted"));
  marked[0]?.focus();
  status(`Hint: ${move.type === "bid" ? bidText(move.bid, move.sans_kitty) : move.type === "discard"
    ? `discard ${move.cards.map(cardName).join(", ")}` : moveText(move)}.`);
}

function clearHint() {
  document.querySelectorAll(".hinted").forEach((e) => e.classList.remove("hinted"));
}

// ----------------------------------------------------------------------------------------------- messages

function status(/** @type {string} */ text) { $("status").textContent = text; }

function connection(/** @type {string} */ state) {
  const element = $("connection");
  element.textContent = { live: "live", reconnecting: "reconnecting…", retrying: "retrying…", ended: "" }[state] ?? state;
  element.dataset.state = state;
}

/** Show a refusal or failure: the problem's reason or code, and its detail. `null` clears it. */
function problem(/** @type {any} */ error) {
  const element = $("problem");
  if (!error) { element.textContent = ""; delete element.dataset.reason; return; }
  const p = error instanceof ApiError ? error.problem : null;
  const code = p?.reason ?? p?.code ?? "";
  element.dataset.reason = code;
  element.textContent = p ? `Refused: ${p.detail ?? p.title}${code ? ` (${code})` : ""}`
    : `Could not reach the service (${error?.message ?? error}).`;
}

// ------------------------------------------------------------------------------------------ start and setup

async function catalogue(/** @type {number} */ players, /** @type {string} */ preset) {
  return api("GET", `/v1/rules?players=${players}${preset ? `&preset=${encodeURIComponent(preset)}` : ""}`);
}

/** Show the table for `saved`: the catalogue, the events kept so far, the view, then the live stream. */
async function open() {
  if (!saved) return;
  rules = await catalogue(saved.players, saved.preset);
  $("log").replaceChildren();
  saved.events.forEach(logEvent);
  shownVersion = saved.events.length ? saved.events[saved.events.length - 1].version : 0;
  const scoreRows = /** @type {HTMLElement} */ ($("score-table").querySelector("tbody"));
  scoreRows.replaceChildren(...rules.score_table.map((/** @type {any} */ row) => {
    const tr = document.createElement("tr");
    tr.innerHTML = "<td></td><td></td>";
    /** @type {HTMLElement} */ (tr.firstChild).textContent = rules.names.bids[row.bid] ?? row.bid;
    /** @type {HTMLElement} */ (tr.lastChild).textContent = String(row.value);
    return tr;
  }));
  $("setup").hidden = true;
  $("table").hidden = false;
  $("side").hidden = false;
  $("new-game").hidden = humanTable(); // and once the view is read, draw() decides
  follow();
  await refresh();
}

async function setup() {
  const form = /** @type {HTMLFormElement} */ ($("setup"));
  const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
  const fill = async () => { // presets and the default target, from the catalogue for this player count
    const players = Number(field("players").value);
    const info = await catalogue(players, field("preset").value);
    const presetSelect = field("preset");
    if (presetSelect.options.length === 1) {
      for (const preset of info.presets) presetSelect.add(Object.assign(new Option(preset.name, preset.name), { title: preset.description }));
    }
    field("target").value = String(info.resolved_options.target);
    const method = field("two_player_method"); // the two-player game's methods, from the catalogue
    const methods = info.options.find((/** @type {any} */ o) => o.name === "two_player_method");
    if (method.options.length === 1 && methods) {
      for (const value of methods.allowed) method.add(new Option(value.replaceAll("_", " "), value));
    }
    /** @type {HTMLElement} */ ($("two-player-method")).hidden = players !== 2;
    const dealer = field("first_dealer");
    dealer.replaceChildren(new Option("random", ""), ...Array.from({ length: players }, (_, s) => new Option(seatName(s), String(s))));
  };
  field("players").onchange = field("preset").onchange = () => fill().catch(problem);
  for (const [name, value] of params) { // the form may be prefilled from the page's URL (?players=5&level=expert)
    const input = field(name);
    if (input && !(input instanceof RadioNodeList)) input.value = value;
  }
  await fill();
  for (const name of ["target", "seed", "first_dealer", "two_player_method"]) if (params.has(name)) field(name).value = /** @type {string} */ (params.get(name));
  form.onsubmit = async (event) => {
    event.preventDefault();
    problem(null);
    try {
      saved = await createSession(form);
      save();
      await open();
    } catch (error) {
      problem(error); // e.g. INVALID_OPTIONS, naming the option
    }
  };
  $("table").hidden = true;
  $("side").hidden = true;
  $("new-game").hidden = true;
  form.hidden = false;
  document.body.dataset.turn = "setup";
  status("Choose a game.");
  field("players").focus();
}

async function newGame() {
  const running = latest && latest.view.phase !== "game_over" && !saved?.watching;
  if (running && !confirm(humanTable() ? "Leave this table? The other players go on without you."
    : "Abandon this game and start a new one?")) return;
  source?.close();
  source = null;
  localStorage.removeItem(STORAGE_KEY);
  saved = null;
  latest = null;
  clockView = null;
  series = null;
  seatsInfo = [];
  life = { status: "running", ended: null };
  shownVersion = drawnVersion = clockVersion = seriesVersion = tableVersion = 0;
  streamEnded = false;
  queue.length = 0;
  problem(null);
  await setup();
}

/**
 * Arrive at a session someone else hosts, from a link: `?join=<session>&code=<invitation>` asks for our name and
 * redeems the invitation for our seat's token (`POST /v1/sessions/{id}/join`); `?watch=<session>&token=<spectator
 * token>` watches as a spectator (the public view and stream only).
 */
async function arrive() {
  const sessionId = /** @type {string} */ (params.get("join") ?? params.get("watch"));
  const url = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  let seat = 0;
  let token = /** @type {string} */ (params.get("token") ?? "");
  if (params.has("join")) {
    const form = /** @type {HTMLFormElement} */ ($("join"));
    document.body.dataset.turn = "joining";
    try { // what the invitation opens, before we give a name (it redeems nothing)
      await showInvitation(await api("GET", `${url}/invitation`, { token: params.get("code") ?? "" }));
    } catch (error) {
      problem(error); // INVITATION_REDEEMED, INVITATION_EXPIRED, or not an invitation of this table
      status("This invitation cannot be used: ask the table's host for a new one.");
      return;
    }
    form.hidden = false;
    status("Choose the name you play under.");
    const joined = await new Promise((resolve) => {
      form.onsubmit = (event) => {
        event.preventDefault();
        const name = /** @type {HTMLInputElement} */ (form.elements.namedItem("name")).value;
        api("POST", `${url}/join`, { body: { code: params.get("code"), name } }).then(resolve, problem);
      };
    });
    form.hidden = true;
    seat = joined.seat;
    token = joined.seat_token;
  }
  const state = await api("GET", url, { token });
  saved = { sessionId, seat, seatToken: token, players: state.view.players, watching: params.has("watch"),
            joined: params.has("join"), preset: "", level: "basic", lastEventId: null, events: [] };
  if (!saved.watching) save(); // a reload of the same page resumes our seat
  await open();
}

async function start() {
  $("new-game").onclick = () => newGame().catch(problem);
  $("hint").onclick = () => hint().catch(problem);
  $("rematch").onclick = () => rematch().catch(problem);
  setInterval(drawClock, 250);
  setInterval(() => nextGameCame().catch(() => {}), 3000);
  document.addEventListener("keydown", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    if (event.key === "h" && !(target instanceof HTMLInputElement) && !$("hint").hidden) hint().catch(problem);
    if ((event.key === "ArrowRight" || event.key === "ArrowLeft") && target.closest?.("#hand, #bids")) {
      const buttons = [...(target.closest("#hand, #bids")?.querySelectorAll("button") ?? [])];
      const next = buttons[buttons.indexOf(/** @type {any} */ (target)) + (event.key === "ArrowRight" ? 1 : -1)];
      /** @type {HTMLElement|undefined} */ (next)?.focus();
    }
  });
  const kept = localStorage.getItem(STORAGE_KEY);
  saved = kept ? JSON.parse(kept) : null;
  const link = params.get("join") ?? params.get("watch");
  if (link && saved?.sessionId !== link) { // a reload of a joined seat resumes it below instead
    saved = null;
    await arrive();
    return;
  }
  if (saved) {
    try {
      await open(); // a reload: the same seat, the stream resumed after the last event kept
      return;
    } catch (error) {
      if (!(error instanceof ApiError && [401, 404].includes(error.status))) { problem(error); return; }
      source?.close(); // the session is gone (expired or deleted): start again
      source = null;
      localStorage.removeItem(STORAGE_KEY);
      saved = null;
    }
  }
  await setup();
}

start().catch(problem);
