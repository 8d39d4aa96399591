/** The value of an unlabelled metric on a node's /metrics (NaN when the node does not report it). */
export const metric = async (url: string, name: string): Promise<number> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
};
