import { OrderValue } from '../model/point.model';
import { PointLocation } from './point-materializer';

/** A scored point during query evaluation (its location is valid until the next await). */
export interface Candidate {
  /** `pointIdKey` of the point. */
  key: string;
  location: PointLocation;
  score: number;
  orderValue?: OrderValue;
}
