import { fromBodyParser } from './body-parser';
import { NotFoundError, PayloadTooLargeError, UserInputError } from './errors';

const JSON_API = {
  tooLarge: 'too large',
  notJson: 'not JSON',
  unsupportedEncoding: 'bad encoding',
  unreadable: 'unreadable',
};
const FORM = { tooLarge: 'form too large', unreadable: 'form unreadable', onlyMarked: true };

describe('fromBodyParser', () => {
  it("words each refusal of a JSON body with the API's wording", () => {
    const too = fromBodyParser({ type: 'entity.too.large', status: 413 }, JSON_API);
    expect(too).toBeInstanceOf(PayloadTooLargeError);
    expect(too?.message).toBe('too large');
    expect(fromBodyParser({ type: 'entity.parse.failed', status: 400 }, JSON_API)?.message).toBe('not JSON');
    expect(fromBodyParser({ type: 'charset.unsupported', status: 415 }, JSON_API)?.message).toBe(
      'bad encoding',
    );
    const gzip = fromBodyParser({ status: 400 }, JSON_API);
    expect(gzip).toBeInstanceOf(UserInputError);
    expect(gzip?.message).toBe('unreadable');
  });

  it('words a form with its own wording, and maps only what the parser marked as its own', () => {
    expect(fromBodyParser({ type: 'parameters.too.many', status: 413 }, FORM)?.message).toBe(
      'form too large',
    );
    expect(fromBodyParser({ type: 'entity.parse.failed', status: 400 }, FORM)?.message).toBe(
      'form unreadable',
    );
    expect(fromBodyParser({ code: 'Z_DATA_ERROR', status: 400 }, FORM)?.message).toBe('form unreadable');
    expect(fromBodyParser({ status: 400 }, FORM)).toBeUndefined();
  });

  it('leaves server failures and errors of the hierarchy alone', () => {
    expect(fromBodyParser({ type: 'stream.not.readable', status: 500 }, JSON_API)).toBeUndefined();
    expect(fromBodyParser(new NotFoundError('gone'), JSON_API)).toBeUndefined();
    expect(fromBodyParser(null, JSON_API)).toBeUndefined();
    expect(fromBodyParser('boom', FORM)).toBeUndefined();
  });
});
