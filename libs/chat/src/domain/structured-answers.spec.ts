import { AppError } from '@kw/platform-errors';
import { describe, expect, it } from 'vitest';
import { askedQuestions, checkAnswers, type AskedQuestion, type GivenAnswer } from './structured-answers.js';

const asked: AskedQuestion[] = [
  { question: 'Which kettle?', options: ['Zephyr', 'Zephyr Mini'] },
  { question: 'Which parts?', options: ['lid', 'base'], multiple: true },
  { question: 'Colour?', options: ['red'], allowOther: true },
  { question: 'Anything else?' },
];

const fieldOf = (answers: GivenAnswer[]): string | undefined => {
  try {
    checkAnswers(asked, answers);
    return undefined;
  } catch (err) {
    expect(AppError.isAppError(err) && err.status === 400).toBe(true);
    return ((err as AppError).details?.fields as Array<{ field: string }>)[0].field;
  }
};

describe('checkAnswers', () => {
  it('takes the options offered, several where multiple, and answers of one’s own where allowed', () => {
    expect(
      fieldOf([
        { question: 'Which kettle?', selected: ['Zephyr Mini'] },
        { question: 'Which parts?', selected: ['lid', 'base'] },
        { question: 'Colour?', selected: ['teal'], other: 'teal' },
        { question: 'Anything else?', selected: [], other: 'No' },
      ]),
    ).toBeUndefined();
  });

  it.each([
    [[{ question: 'Which kettle?', selected: ['Toaster'] }], 'answers[0].selected'],
    [[{ question: 'Which kettle?', selected: ['Zephyr', 'Zephyr Mini'] }], 'answers[0].selected'],
    [[{ question: 'Which kettle?', selected: [], other: 'A toaster' }], 'answers[0].other'],
    [[{ question: 'Which toaster?', selected: [] }], 'answers[0].question'],
  ])('refuses %j naming %s', (answers, field) => {
    expect(fieldOf(answers)).toBe(field);
  });
});

describe('askedQuestions', () => {
  it('reads the questions of the paused ask_user call', () => {
    const questions = [{ question: 'Which kettle?', options: ['Zephyr'] }];
    const messages = [
      { role: 'user' as const, content: 'hi' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function' as const, function: { name: 'search', arguments: '{}' } },
          {
            id: 'c2',
            type: 'function' as const,
            function: { name: 'ask_user', arguments: JSON.stringify({ questions }) },
          },
        ],
      },
    ];
    expect(askedQuestions(messages, 'c2')).toEqual(questions);
    expect(askedQuestions(messages, 'c9')).toEqual([]);
  });
});
