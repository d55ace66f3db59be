import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeProguard, parseProguard } from './proguard';

// The rules of proguard.ts against a mapping written as R8 writes it (testing/android-fixture);
// each expectation names the mapping line it comes from.

const MAPPING = readFileSync(join(import.meta.dirname, '../testing/android-fixture/mapping.txt'), 'utf8');
const mapping = parseProguard(MAPPING);
const VM = 'com.shop.checkout.CheckoutViewModel';

describe('parseProguard', () => {
  it('reads the header', () => {
    expect(mapping.mapId).toBe('8f3a2c1');
    expect(describeProguard(MAPPING)).toEqual({ mapId: '8f3a2c1', hasClass: true });
    expect(describeProguard('# compiler: R8\n# pg_map_id: 1\n')).toEqual({ mapId: '1', hasClass: false });
    expect(mapping.hasClass('a.b.c')).toBe(true);
    expect(mapping.hasClass(VM)).toBe(false); // classes are looked up by their obfuscated name
  });

  it('maps a line inside a range by its offset (1:3:...:50:52 -> a)', () => {
    expect(mapping.lookup('a.b.c', 'a', 2, 'java')).toEqual([
      { function: `${VM}.submitOrder`, file: 'CheckoutViewModel.kt', line: 51 },
    ]);
    expect(mapping.lookup('a.b.c', 'a', 7, 'java')).toEqual([
      { function: `${VM}.submitOrder`, file: 'CheckoutViewModel.kt', line: 56 }, // 5:9 -> 54:58
    ]);
  });

  it('expands an inlined line innermost first, outer frames at their call sites', () => {
    // 4:4 StockChecker.check:23:23, validateCart:61, submitOrder:53
    expect(mapping.lookup('a.b.c', 'a', 4, 'java')).toEqual([
      { function: 'com.shop.checkout.StockChecker.check', file: 'StockChecker.java', line: 23 },
      { function: `${VM}.validateCart`, file: 'CheckoutViewModel.kt', line: 61 },
      { function: `${VM}.submitOrder`, file: 'CheckoutViewModel.kt', line: 53 },
    ]);
    // The same class kept its name (-> itself); the lambda was inlined into onCreate.
    expect(mapping.lookup('com.shop.checkout.CheckoutActivity', 'onCreate', 7, 'kt')).toEqual([
      {
        function: 'com.shop.checkout.CheckoutActivity.onCreate$lambda$0',
        file: 'CheckoutActivity.kt',
        line: 37,
      },
      { function: 'com.shop.checkout.CheckoutActivity.onCreate', file: 'CheckoutActivity.kt', line: 37 },
    ]);
  });

  it('tells methods sharing an obfuscated name apart by the line', () => {
    expect(mapping.lookup('a.b.c', 'b', 3, 'java')).toEqual([
      { function: `${VM}.itemCount`, file: 'CheckoutViewModel.kt', line: 70 },
    ]);
    expect(mapping.lookup('a.b.c', 'b', 1, 'java')).toEqual([
      { function: `${VM}.validateCart`, file: 'CheckoutViewModel.kt', line: 60 },
    ]);
    // Without a line, "b" could be validateCart or itemCount: no answer rather than a guess.
    expect(mapping.lookup('a.b.c', 'b', null, 'java')).toBeNull();
    // Overloads of one name are one answer; a line no range covers has no original line.
    expect(mapping.lookup('a.b.d', 'a', 99, 'java')).toEqual([
      { function: 'com.shop.checkout.StockChecker.check', file: 'StockChecker.java', line: null },
    ]);
  });

  it('keeps the line of a method without line information, and names inner classes by their file', () => {
    expect(mapping.lookup('a.b.c', 'c', 14, 'java')).toEqual([
      { function: `${VM}.describe`, file: 'CheckoutViewModel.kt', line: 14 },
    ]);
    expect(mapping.lookup('a.b.c$a', 'a', 1, 'java')).toEqual([
      { function: `${VM}$Companion.create`, file: 'CheckoutViewModel.kt', line: 100 },
    ]);
    // A single original line (":14") for the whole range; no sourceFile metadata: the outer class.
    expect(mapping.lookup('a.b.e', 'a', 1, 'kt')).toEqual([
      { function: 'com.shop.checkout.OrderFormatter.format', file: 'OrderFormatter.kt', line: 14 },
    ]);
  });

  it('knows nothing of unknown classes and methods; skips lines it cannot read', () => {
    expect(mapping.lookup('a.b.zz', 'a', 1, 'java')).toBeNull();
    expect(mapping.lookup('a.b.c', 'zz', 1, 'java')).toBeNull();
    const odd = parseProguard('garbage\nx.Y -> a:\n    ??? -> b\n    1:2:void run():5:6 -> r\n');
    expect(odd.mapId).toBeNull();
    expect(odd.lookup('a', 'r', 2, 'java')).toEqual([{ function: 'x.Y.run', file: 'Y.java', line: 6 }]);
  });
});
