// What a started server says about itself, for the record: its version
// (vLLM /version, SGLang /get_server_info or /server_info), SGLang's
// effective ServerArgs (the whole /get_server_info dump), and the context
// length /v1/models reports. Missing routes are not errors: custom servers
// may have none of them.

export interface ServerSelfReport {
  version: string | null;
  serverInfo: Record<string, unknown> | null;
  maxModelLen: number | null;
  /** The first model id of /v1/models (what requests must name). */
  modelId: string | null;
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    if (res.status !== 200) {
      await res.arrayBuffer().catch(() => undefined);
      return null;
    }
    return (await res.json()) as unknown;
  } catch {
    return null;
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `headers`: e.g. the endpoint's authorization. */
export async function readServerInfo(baseUrl: string, headers: Record<string, string> = {}): Promise<ServerSelfReport> {
  const [version, info, newInfo, models] = await Promise.all([
    getJson(`${baseUrl}/version`, headers),
    getJson(`${baseUrl}/get_server_info`, headers),
    getJson(`${baseUrl}/server_info`, headers),
    getJson(`${baseUrl}/v1/models`, headers),
  ]);
  const serverInfo = isMap(info) ? info : isMap(newInfo) ? newInfo : null;
  let v: string | null = null;
  if (isMap(version) && typeof version.version === 'string') v = version.version;
  else if (serverInfo && typeof serverInfo.version === 'string') v = serverInfo.version;
  let maxModelLen: number | null = null;
  let modelId: string | null = null;
  const first = isMap(models) && Array.isArray(models.data) ? (models.data[0] as unknown) : null;
  if (isMap(first)) {
    if (typeof first.max_model_len === 'number') maxModelLen = first.max_model_len;
    if (typeof first.id === 'string') modelId = first.id;
  }
  return { version: v, serverInfo, maxModelLen, modelId };
}
