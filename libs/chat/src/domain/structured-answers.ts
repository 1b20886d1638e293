import { invalidField } from '@kw/platform-errors';
import type { ChatMessage } from '@kw/platform-models';

/** One question of an `ask_user` call, as the `question` event showed it. */
export interface AskedQuestion {
  question: string;
  options?: string[];
  multiple?: boolean;
  allowOther?: boolean;
}

export interface GivenAnswer {
  question: string;
  selected: string[];
  other?: string;
}

/** The questions of the `ask_user` call `callId` among a paused turn's messages ([] if none is found). */
export function askedQuestions(messages: ChatMessage[], callId: string): AskedQuestion[] {
  for (const message of messages) {
    const call = message.tool_calls?.find((c) => c.id === callId);
    if (!call) continue;
    try {
      const questions = (JSON.parse(call.function.arguments) as { questions?: unknown }).questions;
      return Array.isArray(questions) ? (questions as AskedQuestion[]) : [];
    } catch {
      return [];
    }
  }
  return [];
}

/**
 * Refuses answers the questions did not allow (400 naming the answer): a question not asked, a
 * selection that is not one of its options (unless it allows an answer of one's own), several
 * selections where one was asked for, or an answer of one's own where only options were offered.
 * A question without options takes a free answer (`other`).
 */
export function checkAnswers(asked: AskedQuestion[], answers: GivenAnswer[]): void {
  answers.forEach((answer, i) => {
    const question = asked.find((q) => q.question === answer.question);
    if (!question) throw invalidField(`answers[${i}].question`, 'is not one of the questions asked');
    const options = question.options ?? [];
    const free = question.allowOther === true || options.length === 0;
    const stray = answer.selected.find((s) => !options.includes(s));
    if (stray !== undefined && !free)
      throw invalidField(`answers[${i}].selected`, `"${stray}" is not one of the options`);
    if (answer.selected.length > 1 && question.multiple !== true)
      throw invalidField(`answers[${i}].selected`, 'only one option may be selected');
    if (answer.other && !free)
      throw invalidField(`answers[${i}].other`, 'this question takes one of its options, not an answer of your own');
  });
}
