/**
 * The system message of an embed turn: the platform's framing, then the configuration's own
 * prompt, then the expert's, then the context items. Pure text assembly.
 */
export function embedInstructions(input: {
  workspaceId: string;
  workspaceName: string;
  configPrompt: string;
  expert?: { name: string; systemPrompt: string };
  toolIds: string[];
  contextBlocks: string[];
}): string {
  const parts = [
    `You are the assistant embedded in a website, answering its visitors from the knowledge workspace "${
      input.workspaceName || input.workspaceId
    }" (workspace id ${input.workspaceId}).`,
    input.toolIds.length > 0
      ? `Use your tools (${input.toolIds.join(', ')}) to look things up in that workspace before you answer, and say so when it holds no answer.`
      : 'Answer from the context below; say so when it holds no answer.',
  ];
  if (input.configPrompt.trim()) parts.push(input.configPrompt.trim());
  if (input.expert?.systemPrompt.trim())
    parts.push(`You act as the expert "${input.expert.name}":\n${input.expert.systemPrompt.trim()}`);
  if (input.contextBlocks.length > 0)
    parts.push(`Context the visitor's page gives this conversation:\n\n${input.contextBlocks.join('\n\n')}`);
  return parts.join('\n\n');
}
