import { describe, expect, it } from 'vitest';
import { answerOf } from '../src/transport/connection-caps.ts';

/** Which outgoing packets answer a CONNECT that took a slot of the connection caps. */
describe('answerOf', () => {
  const message = (data: unknown) => ({ type: 'message', data });

  it('reads the main namespace’s CONNECT and CONNECT_ERROR', () => {
    expect(answerOf(message('0{"sid":"abc"}'))).toBe('connected');
    expect(answerOf(message('4{"message":"Token is malformed","data":{"code":"UNAUTHENTICATED"}}'))).toBe('refused');
  });

  it('leaves out another namespace’s answers: socket.io refuses an unknown one before any step took a slot', () => {
    expect(answerOf(message('4/admin,{"message":"Invalid namespace"}'))).toBeUndefined();
    expect(answerOf(message('0/admin,{"sid":"abc"}'))).toBeUndefined();
  });

  it('leaves out every other packet', () => {
    for (const data of ['2["event",{}]', '31[{"ok":true}]', '1', '51-["event",{"_placeholder":true,"num":0}]'])
      expect(answerOf(message(data)), data).toBeUndefined();
    expect(answerOf(message(Buffer.from('4')))).toBeUndefined();
    expect(answerOf({ type: 'ping', data: '4' })).toBeUndefined();
  });
});
