// One generation request in flight: its engine sequences, and how their
// tokens become SSE chunks (or one JSON body) on the wire. Chunking follows
// the servers: the first chunk of a choice carries its first token alone,
// later ones wait for the stream interval, the last one flushes. Tokens that
// pile up while the stream cannot be written (slow headers, a stall, a slow
// client) are coalesced into one chunk, as vLLM and SGLang do.
import { Sequence, type Engine, type StepListener } from './engine.js';
import { errorBody, streamErrorPayload } from './errors.js';
import type { Metrics } from './metrics.js';
import type { ResolvedOptions } from './options.js';
import { nowNs } from './records.js';
import { SSE_HEADERS, type Reply } from './reply.js';
import type { GenRequest } from './requests.js';
import { malformToolCall } from './tool-calls.js';
import { SSE_DONE, Wire, sseEvent, type Choice } from './wire.js';

export interface ExchangeDeps {
  opts: ResolvedOptions;
  engine: Engine;
  metrics: Metrics;
}

type TokenFault = 'reset-during' | 'stall' | 'malformed-chunk' | 'error-event';

export class Exchange implements StepListener {
  private readonly choices: Choice[] = [];
  private readonly wire: Wire;
  private readonly opts: ResolvedOptions;
  private ended = false;
  /** Writes are held: headers not allowed yet, a stall, or socket backpressure. */
  private blocked = false;
  private waitingDrain = false;
  private tokensWritten = 0;
  private firstTokenSeen = false;
  private chatPromptIdsSent = false;
  private faultFired = false;
  private readonly tokenFault: { kind: TokenFault; afterTokens: number; ms: number | undefined } | null;
  /** parserWithholds, where it applies: vLLM chat streams that did not get return_token_ids. */
  private readonly withheld: number;

  constructor(
    private readonly deps: ExchangeDeps,
    private readonly req: GenRequest,
    private readonly reply: Reply,
  ) {
    this.opts = deps.opts;
    this.wire = new Wire(deps.opts, req);
    this.withheld =
      deps.opts.flavor === 'vllm' && req.api === 'chat' && !req.returnTokenIds ? deps.opts.parserWithholds : 0;
    const f = reply.fault;
    if (
      f &&
      (f.kind === 'reset-during' || f.kind === 'stall' || f.kind === 'malformed-chunk' || f.kind === 'error-event')
    ) {
      const afterTokens = f.afterTokens ?? 0;
      // A stall at 0 tokens is a stall before the headers (handled in start()).
      this.tokenFault = f.kind === 'stall' && afterTokens === 0 ? null : { kind: f.kind, afterTokens, ms: f.ms };
    } else {
      this.tokenFault = null;
    }
    if (f?.kind === 'malformed-tool-call') {
      // Fewer argument pieces: the call is also shorter to generate.
      for (const p of req.prompts) {
        if (!p.toolCall) continue;
        p.toolCall = malformToolCall(p.toolCall);
        p.target = 1 + p.toolCall.pieces.length;
      }
    }
  }

  /** Submits the sequences and opens the stream. */
  start(): void {
    const { req, reply } = this;
    let index = 0;
    for (const prompt of req.prompts) {
      for (let sample = 0; sample < req.n; sample++) {
        const seq = new Sequence(this, prompt.ids.length, prompt.target, prompt.stopsOnEos, prompt.hash, sample);
        seq.cachedTokens = prompt.cachedTokens ?? 0;
        this.choices.push({ index: index++, prompt, seq, sent: 0, textSent: 0, roleSent: false });
      }
    }
    for (const p of req.prompts) this.deps.metrics.promptTokens += p.ids.length;
    reply.onAbort(() => this.abort());

    const f = reply.fault;
    if (req.stream) {
      if (f?.kind === 'slow-headers' || (f?.kind === 'stall' && (f.afterTokens ?? 0) === 0)) {
        this.blocked = true;
        if (f.ms !== undefined) {
          reply.after(reply.msUntilFromArrival(f.ms), () => {
            this.blocked = false;
            this.openHeaders();
            this.flush(true);
          });
        }
      } else if (this.headersAtStart()) {
        this.openHeaders();
      }
    }
    for (const c of this.choices) this.deps.engine.submit(c.seq);
  }

  /**
   * vLLM and SGLang's /generate send the 200 as soon as the request is
   * accepted; SGLang's OpenAI routes wait for the first engine output.
   */
  private headersAtStart(): boolean {
    return this.opts.flavor === 'vllm' || this.req.api === 'generate';
  }

  private openHeaders(): void {
    if (this.reply.headersSent) return;
    this.reply.writeHead(200, SSE_HEADERS);
    this.reply.flushHeaders();
  }

  onStep(): void {
    if (this.ended) return;
    if (!this.firstTokenSeen) {
      this.firstTokenSeen = true;
      this.deps.metrics.observeTtft((nowNs() - this.reply.record.receivedNs) / 1e9);
    }
    if (this.req.stream) this.flush(false);
    else if (this.choices.every((c) => c.seq.finished)) this.finishNonStream();
  }

  private abort(): void {
    if (this.ended) return;
    this.ended = true;
    for (const c of this.choices) {
      if (!c.seq.finished) {
        this.deps.engine.abort(c.seq);
        this.deps.metrics.finished.abort++;
      }
    }
  }

  /** Ends our side: frees engine slots of unfinished sequences (no abort metric). */
  private stopSequences(): void {
    this.ended = true;
    for (const c of this.choices) if (!c.seq.finished) this.deps.engine.abort(c.seq);
  }

  private finishNonStream(): void {
    this.ended = true;
    const tokens = this.choices.reduce((n, c) => n + c.seq.ids.length, 0);
    for (const c of this.choices) c.sent = c.seq.ids.length;
    const body = this.wire.nonStreamBody(this.choices, nowNs() - this.reply.record.receivedNs);
    this.reply.sendJson(200, body, {
      tokens,
      errorFallback: () =>
        errorBody(
          this.opts.flavor,
          this.req.api === 'generate' ? 'generate' : 'openai',
          500,
          'Simulated generation error',
        ),
    });
    this.deps.metrics.observeE2e((nowNs() - this.reply.record.receivedNs) / 1e9);
  }

  /** Should choice `c` emit a chunk now? */
  private due(c: Choice, force: boolean): boolean {
    const pending = c.seq.ids.length - c.sent;
    if (pending <= 0) return false;
    if (force || c.sent === 0 || c.seq.finished) return true;
    // vLLM buffers `interval` tokens since the last chunk; SGLang sends when
    // the decode counter is a multiple of its interval.
    if (this.opts.flavor === 'vllm') return pending >= this.req.streamInterval;
    return c.seq.ids.length % this.req.streamInterval === 0;
  }

  /** Builds the chunks due now and writes them in one socket write. */
  private flush(force: boolean): void {
    if (this.ended || this.blocked || this.reply.finished) return;
    const req = this.req;
    let data = '';
    let events = 0;
    let tokens = 0;

    const ready = this.choices.filter((c) => this.due(c, force));
    if (this.tokenFault && !this.faultFired && ready.length > 0 && this.tokensWritten >= this.tokenFault.afterTokens) {
      if (this.fireFault()) return;
    }

    for (const c of ready) {
      const upTo = c.seq.ids.length;
      const ids = c.seq.ids.slice(c.sent, upTo);
      const last = c.seq.finished && upTo === c.seq.ids.length;
      if (!last && c.sent < this.withheld) {
        // An older vLLM's reasoning/tool parser held this text back: the
        // chunk, its logprobs with it, never leaves the server.
        tokens += ids.length;
        c.textSent += this.wire.text(ids).length;
        c.sent = upTo;
        continue;
      }
      if (req.api === 'generate') {
        if (this.reply.fault?.kind === 'retract-first-token' && c.sent > 0 && !c.retracted) {
          // Everything sent is taken back, and the output restarts from a first id that differs.
          c.retracted = true;
          data += this.wire.generateRetraction(c);
          events++;
          c.seq.ids[0] = c.seq.ids[0]! + 1;
          c.sent = 0;
          c.textSent = 0;
        }
        data += this.wire.generateChunk(c, upTo, last);
      } else {
        const usage = req.continuousUsage ? { prompt: c.prompt.ids.length, completion: upTo } : null;
        if (req.api === 'chat') {
          if (!c.roleSent) {
            c.roleSent = true;
            const firstEver = !this.chatPromptIdsSent;
            this.chatPromptIdsSent = true;
            data += this.wire.chatRoleChunk(
              c,
              firstEver,
              req.continuousUsage ? { prompt: c.prompt.ids.length, completion: 0 } : null,
            );
            events++;
          }
          data += c.prompt.toolCall
            ? this.wire.chatToolChunk(c, c.sent, upTo, last, usage)
            : this.wire.chatChunk(c, ids, last, usage);
        } else {
          data += this.wire.completionChunk(c, ids, last, usage);
        }
      }
      events++;
      tokens += ids.length;
      c.textSent += this.wire.text(ids).length;
      c.sent = upTo;
    }

    const allSent = this.choices.every((c) => c.seq.finished && c.sent === c.seq.ids.length);
    if (allSent && this.tokenFault && !this.faultFired) {
      // The fault's token threshold was never reached: fire it just before
      // the terminator, so the client always sees it.
      if (data.length > 0) this.writeNow(data, events, tokens);
      if (this.fireFault()) return;
      data = '';
      events = 0;
      tokens = 0;
    }

    if (allSent) {
      if (req.includeUsage && req.api !== 'generate') {
        let prompt = 0;
        for (const p of req.prompts) prompt += p.ids.length;
        let completion = 0;
        for (const c of this.choices) completion += c.sent;
        data += this.wire.usageChunk({ prompt, completion });
        events++;
      }
      if (this.opts.sseDone) {
        data += SSE_DONE;
        events++;
      }
      this.ended = true;
      this.openHeaders();
      this.tokensWritten += tokens;
      this.reply.end(data, events, tokens);
      this.deps.metrics.observeE2e((nowNs() - this.reply.record.receivedNs) / 1e9);
      return;
    }
    if (data.length > 0) this.writeNow(data, events, tokens);
  }

  private writeNow(data: string, events: number, tokens: number): void {
    this.openHeaders();
    this.tokensWritten += tokens;
    const ok = this.reply.write(data, events, tokens);
    if (!ok && !this.waitingDrain && !this.reply.finished) {
      // The client reads slower than we generate: hold writes until the
      // socket drains, and coalesce what accumulates meanwhile.
      this.waitingDrain = true;
      this.blocked = true;
      this.reply.res.once('drain', () => {
        this.waitingDrain = false;
        this.blocked = false;
        this.flush(true);
      });
    }
  }

  /** Applies the token fault. Returns true if the stream must not continue now. */
  private fireFault(): boolean {
    const f = this.tokenFault!;
    this.faultFired = true;
    const family = this.req.api === 'generate' ? 'generate' : 'openai';
    switch (f.kind) {
      case 'reset-during':
        this.openHeaders();
        this.stopSequences();
        this.reply.resetAfterFlush();
        return true;
      case 'stall':
        this.blocked = true;
        if (f.ms !== undefined) {
          this.reply.after(f.ms, () => {
            this.blocked = false;
            this.flush(true);
          });
        }
        return true;
      case 'malformed-chunk': {
        // A truncated JSON event; the stream then goes on normally.
        const sample = JSON.stringify({
          id: this.req.id,
          object: 'text_completion',
          created: this.req.created,
          model: this.req.model,
          choices: [],
        });
        this.writeNow(`data: ${sample.slice(0, Math.floor(sample.length / 2))}\n\n`, 1, 0);
        return false;
      }
      case 'error-event': {
        this.stopSequences();
        this.openHeaders();
        const payload = streamErrorPayload(this.opts.flavor, family, 500, 'Simulated generation error');
        this.reply.end(sseEvent(payload) + SSE_DONE, 2, 0);
        return true;
      }
    }
  }
}
