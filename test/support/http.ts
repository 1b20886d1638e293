/** Reads a JSON body for assertions (tests inspect arbitrary shapes, so it is untyped on purpose). */
export async function readJson(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected JSON, got ${res.status}: ${text.slice(0, 300)}`);
  }
}
