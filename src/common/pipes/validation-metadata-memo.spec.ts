import { Logger } from '@nestjs/common';
import { getMetadataStorage, IsInt, IsString, MetadataStorage, validate } from 'class-validator';
import {
  installedClassValidator,
  memoiseValidationMetadata,
  METADATA_MEMO_WRITTEN_FOR,
} from './validation-metadata-memo';

describe('validation rules remembered per class', () => {
  it('the installed class-validator is the one the memo was written for (re-read it, then move the pin)', () => {
    expect(installedClassValidator()).toBe(METADATA_MEMO_WRITTEN_FOR);
  });

  it('answers as class-validator does, and sees a rule declared after a class was validated', async () => {
    expect(memoiseValidationMetadata()).toBe(true);
    expect(memoiseValidationMetadata()).toBe(true); // installed once, whoever asks again

    class Page {
      @IsInt()
      limit!: unknown;
    }
    class NamedPage extends Page {
      @IsString()
      name!: unknown;
    }
    const properties = async (value: object) =>
      (await validate(value)).map((error) => `${error.property}: ${Object.keys(error.constraints ?? {}).join()}`);

    expect(await properties(Object.assign(new Page(), { limit: 'x' }))).toEqual(['limit: isInt']);
    expect(await properties(Object.assign(new Page(), { limit: 1 }))).toEqual([]);
    expect(await properties(Object.assign(new NamedPage(), { limit: 'x', name: 2 }))).toEqual([
      'name: isString',
      'limit: isInt',
    ]);

    // A rule added to a class already validated (a module loaded later declares one): seen at once.
    IsString()(Page.prototype, 'cursor');
    expect(await properties(Object.assign(new Page(), { limit: 1, cursor: 3 }))).toEqual(['cursor: isString']);
    expect(await properties(Object.assign(new NamedPage(), { limit: 1, name: 'a', cursor: 3 }))).toEqual([
      'cursor: isString',
    ]);
    expect(getMetadataStorage().getTargetValidationMetadatas(Page, '', false, false)).toBe(
      getMetadataStorage().getTargetValidationMetadatas(Page, '', false, false),
    );
  });

  it('on another class-validator version, leaves the storage as shipped and says so once', () => {
    const storage = new MetadataStorage();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect(memoiseValidationMetadata(storage, '0.16.0')).toBe(false);
      expect(storage.getTargetValidationMetadatas).toBe(MetadataStorage.prototype.getTargetValidationMetadatas);
      expect(storage.addValidationMetadata).toBe(MetadataStorage.prototype.addValidationMetadata);
      expect(warn.mock.calls.map(([message]) => message)).toEqual([
        `Validation rules remembered per class (class-validator's metadata storage): written for class-validator ${METADATA_MEMO_WRITTEN_FOR}, 0.16.0 is installed; using class-validator as shipped`,
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
