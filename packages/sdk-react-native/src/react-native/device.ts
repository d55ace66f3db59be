import { Platform } from 'react-native';
import type { DeviceInfo } from '../platform';

/** `platform` and `device_os` from React Native's Platform: `iOS 17.4`, `Android 14 (API 34)`. */
export function reactNativeDevice(): DeviceInfo {
  if (Platform.OS === 'ios') return { platform: 'ios', os: `iOS ${Platform.Version}` };
  if (Platform.OS === 'android')
    return { platform: 'android', os: `Android ${Platform.constants.Release} (API ${Platform.Version})` };
  return { platform: Platform.OS, os: `${Platform.OS} ${Platform.Version}` };
}
